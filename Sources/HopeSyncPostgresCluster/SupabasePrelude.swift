/// What a Supabase project has before any app SQL runs, so a plain PostgreSQL can stand in for
/// one: the API roles, `auth.uid()` read from the request's JWT claims, the `extensions` schema
/// with moddatetime, Supabase's default privileges (every role may do everything on new
/// public tables, row-level security being the guard), and the part of Storage's `storage`
/// schema that the generated bucket SQL and the test Storage server use.
///
/// No kinder than Supabase where the generated SQL could tell: `storage` belongs to
/// `supabase_storage_admin` and `realtime` to `supabase_realtime_admin`, and the SQL editor's
/// role (`postgres`, here the superuser) may only create, alter and drop policies on their
/// objects, as the supautils extension's policy grants allow it there (``serviceSchemaGuard``).
public enum SupabasePrelude {
    /// Once per cluster: roles are cluster-wide.
    public static let roles = """
        create role anon nologin noinherit;
        create role authenticated nologin noinherit;
        create role service_role nologin noinherit bypassrls;
        grant anon, authenticated, service_role to postgres;
        create role supabase_storage_admin nologin noinherit createrole;
        create role supabase_realtime_admin nologin noinherit;
        """

    /// Once per database.
    public static let database = """
        create schema auth;
        grant usage on schema auth to anon, authenticated, service_role;
        create function auth.uid() returns uuid language sql stable as $$
          select (nullif(pg_catalog.current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')::uuid
        $$;
        create schema extensions;
        grant usage on schema extensions to anon, authenticated, service_role;
        create extension moddatetime with schema extensions;
        grant usage on schema public to anon, authenticated, service_role;
        alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
        alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
        alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
        """ + storage + serviceSchemaGuard

    /// Storage's tables as its migrations leave them (the columns its API and policies use),
    /// with row-level security on and every API role granted everything, as on Supabase: the
    /// policies decide. A project without file columns never touches them.
    static let storage = """
        create schema storage authorization supabase_storage_admin;
        set role supabase_storage_admin;
        grant usage on schema storage to postgres, anon, authenticated, service_role;
        create table storage.buckets (
          id text primary key,
          name text not null,
          owner uuid,
          owner_id text,
          public boolean default false,
          file_size_limit bigint,
          allowed_mime_types text[],
          created_at timestamptz default now(),
          updated_at timestamptz default now()
        );
        create unique index bname on storage.buckets (name);
        create table storage.objects (
          id uuid primary key default gen_random_uuid(),
          bucket_id text references storage.buckets (id),
          name text,
          owner uuid,
          owner_id text,
          created_at timestamptz default now(),
          updated_at timestamptz default now(),
          last_accessed_at timestamptz default now(),
          metadata jsonb,
          path_tokens text[] generated always as (string_to_array(name, '/')) stored,
          version text,
          user_metadata jsonb
        );
        create unique index bucketid_objname on storage.objects (bucket_id, name);
        alter table storage.buckets enable row level security;
        alter table storage.objects enable row level security;
        grant all on storage.buckets, storage.objects to postgres, anon, authenticated, service_role;
        create function storage.foldername(name text) returns text[] language plpgsql as $$
        declare
          _parts text[];
        begin
          select string_to_array(name, '/') into _parts;
          return _parts[1:array_length(_parts, 1) - 1];
        end
        $$;
        create function storage.filename(name text) returns text language plpgsql as $$
        declare
          _parts text[];
        begin
          select string_to_array(name, '/') into _parts;
          return _parts[array_length(_parts, 1)];
        end
        $$;
        grant execute on all functions in schema storage to postgres, anon, authenticated, service_role;
        reset role;
        """

    /// supautils' policy grants, as far as the generated SQL could tell them apart: on Supabase
    /// the SQL editor's role creates, alters and drops policies on `storage` and `realtime`
    /// objects and does nothing else to them (no `alter table`, index, comment or trigger), and
    /// their owners do what they like. An event trigger refuses the rest, as PostgreSQL refuses
    /// a non-owner (42501). (Grants are not caught: an event trigger is not told their object.)
    static let serviceSchemaGuard = """
        create schema supautils;
        create function supautils.service_schema_guard() returns event_trigger language plpgsql as $$
        declare
          touched text; -- a trigger's or rule's identity names its table (`t on realtime.messages`)
        begin
          if current_user in ('supabase_storage_admin', 'supabase_realtime_admin')
              or tg_tag in ('CREATE POLICY', 'ALTER POLICY', 'DROP POLICY') then
            return;
          end if;
          if tg_event = 'sql_drop' then
            select string_agg(object_identity, ', ') into touched from pg_catalog.pg_event_trigger_dropped_objects()
              where schema_name in ('storage', 'realtime') or object_identity ~ ' on (storage|realtime)\\.';
          else
            select string_agg(object_identity, ', ') into touched from pg_catalog.pg_event_trigger_ddl_commands()
              where schema_name in ('storage', 'realtime') or object_identity ~ ' on (storage|realtime)\\.';
          end if;
          if touched is not null then
            raise exception using errcode = '42501',
              message = pg_catalog.format('must be owner of %s: on Supabase the SQL editor''s role may only create, alter and drop policies there (%s)',
                touched, tg_tag);
          end if;
        end
        $$;
        revoke all on function supautils.service_schema_guard() from public;
        create event trigger supabase_service_schema_guard on ddl_command_end
          execute function supautils.service_schema_guard();
        create event trigger supabase_service_schema_guard_drop on sql_drop
          execute function supautils.service_schema_guard();
        """

    /// Supabase Realtime's part of a project, per database, for the tests that want it (the
    /// others stand for a PostgreSQL without it), owned by `supabase_realtime_admin`:
    /// `realtime.messages` partitioned by day with no default partition, and the partitions
    /// Realtime keeps (yesterday to three days ahead, `messages_YYYY_MM_DD`), row-level security
    /// on and no policy, `realtime.topic()` and `realtime.send()` as Realtime's migrations make
    /// them (a send on a day without a partition only warns, `WarnSendingBroadcastMessage`).
    /// Nothing here delivers a message: the test Realtime server does
    /// (Tests/Servers/realtime_server.py).
    public static let realtime = """
        create schema realtime authorization supabase_realtime_admin;
        set role supabase_realtime_admin;
        grant usage on schema realtime to postgres, anon, authenticated, service_role;
        create table realtime.messages (
          topic text not null,
          extension text not null,
          payload jsonb,
          event text,
          private boolean default false,
          updated_at timestamp without time zone default now() not null,
          inserted_at timestamp without time zone default now() not null,
          id uuid default gen_random_uuid() not null,
          primary key (id, inserted_at)
        ) partition by range (inserted_at);
        do $partitions$
        declare
          day date;
        begin
          for day in select pg_catalog.generate_series(current_date - 1, current_date + 3, interval '1 day')::date loop
            execute pg_catalog.format('create table realtime.%I partition of realtime.messages for values from (%L) to (%L)',
              'messages_' || pg_catalog.to_char(day, 'YYYY_MM_DD'), day, day + 1);
          end loop;
        end
        $partitions$;
        create index messages_inserted_at_topic_index on only realtime.messages (inserted_at desc, topic)
          where extension = 'broadcast' and private is true;
        alter table realtime.messages enable row level security;
        grant select, insert, update on realtime.messages to postgres, anon, authenticated, service_role;
        create function realtime.topic() returns text language sql stable as $$
          select nullif(current_setting('realtime.topic', true), '')::text;
        $$;
        create function realtime.send(payload jsonb, event text, topic text, private boolean default true) returns void
        language plpgsql as $$
        declare
          generated_id uuid;
          final_payload jsonb;
        begin
          begin
            generated_id := gen_random_uuid();
            if payload ? 'id' then
              final_payload := payload;
            else
              final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
            end if;
            execute format('set local realtime.topic to %L', topic);
            insert into realtime.messages (id, payload, event, topic, private, extension)
            values (generated_id, final_payload, event, topic, private, 'broadcast');
          exception
            when others then
              raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
          end;
        end;
        $$;
        grant usage on all sequences in schema realtime to anon, authenticated, service_role;
        reset role;
        """
}
