/// What a Supabase project has before any app SQL runs, so a plain PostgreSQL can stand in for
/// one: the API roles, `auth.uid()` read from the request's JWT claims, the `extensions` schema
/// with moddatetime, Supabase's default privileges (every role may do everything on new
/// public tables, row-level security being the guard), and the part of Storage's `storage`
/// schema that the generated bucket SQL and the test Storage server use.
public enum SupabasePrelude {
    /// Once per cluster: roles are cluster-wide.
    public static let roles = """
        create role anon nologin noinherit;
        create role authenticated nologin noinherit;
        create role service_role nologin noinherit bypassrls;
        grant anon, authenticated, service_role to postgres;
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
        """ + storage

    /// Storage's tables as its migrations leave them (the columns its API and policies use),
    /// with row-level security on and every API role granted everything, as on Supabase: the
    /// policies decide. A project without file columns never touches them.
    static let storage = """
        create schema storage;
        grant usage on schema storage to anon, authenticated, service_role;
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
        grant all on storage.buckets, storage.objects to anon, authenticated, service_role;
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
        grant execute on all functions in schema storage to anon, authenticated, service_role;
        """

    /// Supabase Realtime's part of a project, per database, for the tests that want it (the
    /// others stand for a PostgreSQL without it): `realtime.messages` partitioned by day as
    /// Realtime keeps it (here one default partition), row-level security on and no policy,
    /// `realtime.topic()` and `realtime.send()` as Realtime's migrations make them. Nothing here
    /// delivers a message: the test Realtime server does (Tests/Servers/realtime_server.py).
    public static let realtime = """
        create schema realtime;
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
        create table realtime.messages_default partition of realtime.messages default;
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
              raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
          end;
        end;
        $$;
        grant usage on all sequences in schema realtime to anon, authenticated, service_role;
        """
}
