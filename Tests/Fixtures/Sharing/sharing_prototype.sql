-- Sharing by scope (decision 0048), written by hand for the example schema: task_lists is a
-- scope, tasks name theirs in list_id, task_photos follow their task (list_id kept equal to the
-- task's). Applied after Generated/supabase/schema.sql; SharingSQLTests prove it on PostgreSQL
-- 15. The templates render the same SQL for any scoped schema once the schema model has scopes.
--
-- Streams: a row is in its scope's stream (list_id set; a list is its own scope) or in its
-- owner's own stream (list_id null). A write takes its stream's advisory lock before nextval, so
-- within a stream server_seq order is commit order, and a device keeps a cursor per (table,
-- stream).
begin;
set local client_min_messages = warning;

-- Functions an API role must execute although they are security definer (the member check that
-- policies call, the membership requests) live in a schema PostgREST does not expose: a security
-- definer function in `public` is callable by anyone signed in through /rest/v1/rpc, which
-- Supabase's advisors flag. The public entry points are security invoker wrappers.
create schema if not exists hope_sync;
revoke all on schema hope_sync from public;
grant usage on schema hope_sync to authenticated, service_role;

-- The scope column of the rows that follow a scope, and their stream's pull index.
alter table public.tasks add column if not exists list_id uuid;
alter table public.task_photos add column if not exists list_id uuid;
create index if not exists tasks_list_id_server_seq_idx on public.tasks (list_id, server_seq);
create index if not exists task_photos_list_id_server_seq_idx on public.task_photos (list_id, server_seq);
create index if not exists task_lists_id_server_seq_idx on public.task_lists (id, server_seq);

-- task_lists_members: who may read (viewer), write (editor) and manage (owner) a list. Written
-- only by the functions below (they check the rules and take the list's lock), never through
-- the table: a membership change is a request, not a queued row. A removal soft-deletes
-- (deleted_ms), so the list's other members read it in the list's stream like any row of it.
create table if not exists public.task_lists_members (
  id uuid primary key default gen_random_uuid(),
  scope_id uuid not null,
  user_id uuid not null,
  role text not null check (role in ('owner', 'editor', 'viewer')),
  added_by uuid,
  added_at timestamptz not null default now(),
  deleted_ms bigint,
  server_seq bigint not null,
  unique (scope_id, user_id)
);
-- The member check: one index range over the caller's memberships.
create index if not exists task_lists_members_user_id_idx on public.task_lists_members (user_id, scope_id, role)
  where deleted_ms is null;
create index if not exists task_lists_members_scope_id_server_seq_idx on public.task_lists_members (scope_id, server_seq);
revoke all on table public.task_lists_members from anon, authenticated;
grant select on table public.task_lists_members to authenticated;
grant select, insert, update, delete on table public.task_lists_members to service_role;
alter table public.task_lists_members enable row level security;

-- The caller's lists for a minimum role ('viewer', 'editor', 'owner'), as an array: policies
-- call it as `= any ((select ...))`, so it runs once a statement. Security definer: it reads the
-- membership table past its own policy (which calls it: a policy cannot read its own table).
create or replace function hope_sync.task_lists_scopes(min_role text)
returns uuid[]
language sql
stable
security definer
set search_path = ''
as $$
  select coalesce(pg_catalog.array_agg(m.scope_id), '{}')
  from public.task_lists_members m
  where m.user_id = auth.uid() and m.deleted_ms is null
    and (min_role = 'viewer' or m.role = 'owner' or (min_role = 'editor' and m.role = 'editor'))
$$;
revoke all on function hope_sync.task_lists_scopes(text) from public, anon;
grant execute on function hope_sync.task_lists_scopes(text) to authenticated, service_role;

-- The caller's role in one list (null: none). The lists policy asks it only of rows the caller
-- wrote that the statement's member check missed: lists created by that very statement (their
-- owner row is made by their insert trigger, which the statement's snapshot does not see:
-- volatile, so it reads with a snapshot of its own).
create or replace function hope_sync.task_lists_role(scope uuid)
returns text
language sql
volatile
security definer
set search_path = ''
as $$
  select m.role from public.task_lists_members m
  where m.scope_id = scope and m.user_id = auth.uid() and m.deleted_ms is null
$$;
revoke all on function hope_sync.task_lists_role(uuid) from public, anon;
grant execute on function hope_sync.task_lists_role(uuid) to authenticated, service_role;

drop policy if exists task_lists_members_select_member on public.task_lists_members;
create policy task_lists_members_select_member on public.task_lists_members for select to authenticated
  using (scope_id = any ((select hope_sync.task_lists_scopes('viewer'))::uuid[]));

-- Rows that left a stream (moved to another list, or between a list and own rows): each exit
-- is in the stream the row left, with a server_seq taken under that stream's lock, so the
-- stream's readers page it with its rows and delete their copy. scope null: the owner's own
-- stream. Written only by the triggers.
create table if not exists public.sync_exits (
  server_seq bigint primary key,
  scope uuid,
  owner uuid not null,
  table_name text not null,
  row_id uuid not null
);
create index if not exists sync_exits_scope_idx on public.sync_exits (scope, table_name, server_seq) where scope is not null;
create index if not exists sync_exits_owner_idx on public.sync_exits (owner, table_name, server_seq) where scope is null;
revoke all on table public.sync_exits from anon, authenticated;
grant select on table public.sync_exits to authenticated;
grant select, insert, update, delete on table public.sync_exits to service_role;
alter table public.sync_exits enable row level security;
drop policy if exists sync_exits_select_reader on public.sync_exits;
create policy sync_exits_select_reader on public.sync_exits for select to authenticated
  using ((scope is null and owner = (select auth.uid())) or scope = any ((select hope_sync.task_lists_scopes('viewer'))::uuid[]));

-- A list's lock, for the membership functions (security definer: they act for the caller).
-- The same key space and bounded wait as an owner's lock (public.sync_wait_for_owner).
create or replace function hope_sync.lock_scope(scope uuid)
returns void
language plpgsql
set search_path = ''
as $$
declare
  previous text := pg_catalog.current_setting('lock_timeout');
begin
  if pg_catalog.pg_try_advisory_xact_lock(1752134757, pg_catalog.hashtext(scope::text)) then
    return;
  end if;
  if not pg_catalog.pg_try_advisory_xact_lock(1752134758, pg_catalog.hashtext(scope::text)) then
    raise exception using errcode = '55P03', message = 'another request is waiting to write this list: retry shortly';
  end if;
  perform pg_catalog.set_config('lock_timeout',
    coalesce(nullif(pg_catalog.current_setting('hope_sync.owner_lock_timeout', true), ''), '1s'), true);
  perform pg_catalog.pg_advisory_xact_lock(1752134757, pg_catalog.hashtext(scope::text));
  perform pg_catalog.set_config('lock_timeout', previous, true);
end
$$;
revoke all on function hope_sync.lock_scope(uuid) from public, anon, authenticated, service_role;

-- The bounded wait for a list's lock that another transaction holds, called by the write
-- triggers as the writing role: as public.sync_wait_for_owner, but a signed-in user waits only
-- for the lists they edit (nobody queues in front of another team's writes).
create or replace function public.sync_wait_for_scope(scope uuid)
returns void
language plpgsql
set search_path = ''
as $$
declare
  previous text := pg_catalog.current_setting('lock_timeout');
begin
  if auth.uid() is not null and not scope = any (hope_sync.task_lists_scopes('editor')) then
    raise exception using errcode = '42501', message = 'a user waits only for the lists they edit';
  end if;
  if not pg_catalog.pg_try_advisory_xact_lock(1752134758, pg_catalog.hashtext(scope::text)) then
    raise exception using errcode = '55P03', message = 'another request is waiting to write this list: retry shortly';
  end if;
  perform pg_catalog.set_config('lock_timeout',
    coalesce(nullif(pg_catalog.current_setting('hope_sync.owner_lock_timeout', true), ''), '1s'), true);
  perform pg_catalog.pg_advisory_xact_lock(1752134757, pg_catalog.hashtext(scope::text));
  perform pg_catalog.set_config('lock_timeout', previous, true);
end
$$;
revoke all on function public.sync_wait_for_scope(uuid) from public, anon;
grant execute on function public.sync_wait_for_scope(uuid) to authenticated, service_role;

-- Marks (public.sync_marks) for an owner's own stream: as public.sync_written_owners does for
-- one owner (once a transaction; pruned in batches).
create or replace function public.sync_mark_owner(owner uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  current_xid xid8 := pg_catalog.pg_current_xact_id();
begin
  if pg_catalog.current_setting('sync.marked', true) is distinct from current_xid::text || ' ' || owner::text then
    insert into public.sync_marks (user_id, xid) values (owner, current_xid) on conflict do nothing;
    perform pg_catalog.set_config('sync.marked', current_xid::text || ' ' || owner::text, true);
    if current_xid::text::bigint % 16 = 0 then
      delete from public.sync_marks m where m.ctid = any (array(
        select o.ctid from public.sync_marks o
        where o.user_id = owner and o.xid < pg_catalog.pg_snapshot_xmin(pg_catalog.pg_current_snapshot())
          and o.xid <> current_xid
        for update skip locked));
    end if;
  end if;
end
$$;
revoke all on function public.sync_mark_owner(uuid) from public, anon, authenticated, service_role;

-- Marks for a list's stream: one for each current member (read once the list's lock is held,
-- so a member added concurrently is either seen here or added after this write commits), once a
-- transaction per list; an idle check stays one lookup of the caller's own marks, however many
-- lists they are in. A transaction whose id is a multiple of 16 prunes those members' marks.
create or replace function public.sync_mark_scope(scope uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  current_xid xid8 := pg_catalog.pg_current_xact_id();
begin
  if pg_catalog.current_setting('sync.marked_scope', true) is distinct from current_xid::text || ' ' || scope::text then
    insert into public.sync_marks (user_id, xid)
      select m.user_id, current_xid from public.task_lists_members m where m.scope_id = scope and m.deleted_ms is null
      on conflict do nothing;
    perform pg_catalog.set_config('sync.marked_scope', current_xid::text || ' ' || scope::text, true);
    if current_xid::text::bigint % 16 = 0 then
      delete from public.sync_marks d where d.ctid = any (array(
        select o.ctid from public.sync_marks o
        join public.task_lists_members m on m.user_id = o.user_id and m.scope_id = scope and m.deleted_ms is null
        where o.xid < pg_catalog.pg_snapshot_xmin(pg_catalog.pg_current_snapshot()) and o.xid <> current_xid
        for update of o skip locked));
    end if;
  end if;
end
$$;
revoke all on function public.sync_mark_scope(uuid) from public, anon, authenticated, service_role;

-- After each statement that wrote a scoped table's rows (transition table `written`; the scope
-- column is the trigger's argument): the owner of each own-stream row and the members of each
-- list written are marked. Replaces public.sync_written_owners on scoped tables.
create or replace function public.sync_written_streams()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  stream record;
begin
  for stream in execute pg_catalog.format(
    'select distinct w.%1$I as scope, case when w.%1$I is null then w.user_id end as owner from written w', tg_argv[0])
  loop
    if stream.scope is null then
      perform public.sync_mark_owner(stream.owner);
    else
      perform public.sync_mark_scope(stream.scope);
    end if;
  end loop;
  return null;
end
$$;
revoke all on function public.sync_written_streams() from public, anon, authenticated, service_role;

-- A row left a stream: its exit, in the stream it left (the trigger's argument names the scope
-- column), stamped from the one sequence while that stream's lock is held (the write trigger
-- took both streams' locks), and the readers of that stream marked.
create or replace function public.sync_row_moved()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  old_scope uuid := (pg_catalog.to_jsonb(old) ->> tg_argv[0])::uuid;
begin
  insert into public.sync_exits (server_seq, scope, owner, table_name, row_id)
    values (pg_catalog.nextval('public.sync_server_seq'), old_scope, old.user_id, tg_table_name, old.id);
  if old_scope is null then
    perform public.sync_mark_owner(old.user_id);
  else
    perform public.sync_mark_scope(old_scope);
  end if;
  -- A task's photos follow it (their write trigger takes the list from the task).
  if tg_table_name = 'tasks' then
    update public.task_photos p set list_id = new.list_id where p.task_id = new.id and p.list_id is distinct from new.list_id;
  end if;
  return null;
end
$$;
revoke all on function public.sync_row_moved() from public, anon, authenticated, service_role;

-- task_lists: every list is a scope, its own stream (its id).
create or replace function public.task_lists_before_write()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'UPDATE' then
    new.user_id := old.user_id;
    new.version := old.version + 1;
    -- Deleting a list ends it for every member: an owner's decision.
    if old.deleted_ms is null and new.deleted_ms is not null and auth.uid() is not null
        and not new.id = any (hope_sync.task_lists_scopes('owner')) then
      raise exception using errcode = '42501', message = 'only an owner of this list can delete it';
    end if;
  else
    new.version := 1;
  end if;
  -- The list's lock before nextval: a list's rows (itself, its tasks, their photos, its
  -- members) commit in server_seq order.
  if not pg_catalog.pg_try_advisory_xact_lock(1752134757, pg_catalog.hashtext(new.id::text)) then
    perform public.sync_wait_for_scope(new.id);
  end if;
  new.server_seq := pg_catalog.nextval('public.sync_server_seq');
  return new;
end
$$;
revoke all on function public.task_lists_before_write() from public, anon, authenticated, service_role;

-- A new list's creator is its owner. A second BEFORE INSERT trigger (after task_lists_before_write
-- by name, so under the list's lock), security definer to write the membership: the list's
-- own insert policy then lets the creator read it back in the same statement. An upsert of a
-- list that exists fires it too: then the row is there and nothing is added.
create or replace function public.task_lists_creator_owner()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from public.task_lists t where t.id = new.id) then
    insert into public.task_lists_members (scope_id, user_id, role, added_by, server_seq)
      values (new.id, new.user_id, 'owner', new.user_id, pg_catalog.nextval('public.sync_server_seq'))
      on conflict (scope_id, user_id) do nothing;
  end if;
  return new;
end
$$;
revoke all on function public.task_lists_creator_owner() from public, anon, authenticated, service_role;
create or replace trigger task_lists_creator_owner
  before insert on public.task_lists
  for each row execute function public.task_lists_creator_owner();

-- A deleted list takes its rows and its memberships with it: its tasks and photos are
-- soft-deleted (their triggers stamp them in the list's stream) and every membership ends,
-- the members marked so their next pull sees the list gone.
create or replace function public.task_lists_deleted()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  update public.tasks t set deleted_ms = new.deleted_ms where t.list_id = new.id and t.deleted_ms is null;
  update public.task_photos p set deleted_ms = new.deleted_ms where p.list_id = new.id and p.deleted_ms is null;
  insert into public.sync_marks (user_id, xid)
    select m.user_id, pg_catalog.pg_current_xact_id() from public.task_lists_members m
    where m.scope_id = new.id and m.deleted_ms is null
    on conflict do nothing;
  update public.task_lists_members m
    set deleted_ms = new.deleted_ms, server_seq = pg_catalog.nextval('public.sync_server_seq')
    where m.scope_id = new.id and m.deleted_ms is null;
  return null;
end
$$;
revoke all on function public.task_lists_deleted() from public, anon, authenticated, service_role;
create or replace trigger task_lists_deleted
  after update on public.task_lists
  for each row when (old.deleted_ms is null and new.deleted_ms is not null)
  execute function public.task_lists_deleted();

create or replace trigger task_lists_written_insert
  after insert on public.task_lists
  referencing new table as written
  for each statement execute function public.sync_written_streams('id');
create or replace trigger task_lists_written_update
  after update on public.task_lists
  referencing new table as written
  for each statement execute function public.sync_written_streams('id');

-- Members read a list; editors write it; anyone signed in creates one (and owns it).
drop policy if exists task_lists_select_own on public.task_lists;
create policy task_lists_select_own on public.task_lists for select to authenticated
  using (id = any ((select hope_sync.task_lists_scopes('viewer'))::uuid[])
    or (user_id = (select auth.uid()) and hope_sync.task_lists_role(id) is not null));
drop policy if exists task_lists_insert_own on public.task_lists;
create policy task_lists_insert_own on public.task_lists for insert to authenticated
  with check (user_id = (select auth.uid()));
drop policy if exists task_lists_update_own on public.task_lists;
create policy task_lists_update_own on public.task_lists for update to authenticated
  using (id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[]))
  with check (id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[]));

-- tasks and task_photos: own rows (list_id null, the owner's) or a list's (its members read,
-- its editors write). Nobody writes a row into a list they do not edit.
drop policy if exists tasks_select_own on public.tasks;
create policy tasks_select_own on public.tasks for select to authenticated
  using ((list_id is null and user_id = (select auth.uid())) or list_id = any ((select hope_sync.task_lists_scopes('viewer'))::uuid[]));
drop policy if exists tasks_insert_own on public.tasks;
create policy tasks_insert_own on public.tasks for insert to authenticated
  with check (user_id = (select auth.uid()) and (list_id is null or list_id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[])));
drop policy if exists tasks_update_own on public.tasks;
create policy tasks_update_own on public.tasks for update to authenticated
  using ((list_id is null and user_id = (select auth.uid())) or list_id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[]))
  with check ((list_id is null and user_id = (select auth.uid())) or list_id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[]));
drop policy if exists task_photos_select_own on public.task_photos;
create policy task_photos_select_own on public.task_photos for select to authenticated
  using ((list_id is null and user_id = (select auth.uid())) or list_id = any ((select hope_sync.task_lists_scopes('viewer'))::uuid[]));
drop policy if exists task_photos_insert_own on public.task_photos;
create policy task_photos_insert_own on public.task_photos for insert to authenticated
  with check (user_id = (select auth.uid()) and (list_id is null or list_id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[])));
drop policy if exists task_photos_update_own on public.task_photos;
create policy task_photos_update_own on public.task_photos for update to authenticated
  using ((list_id is null and user_id = (select auth.uid())) or list_id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[]))
  with check ((list_id is null and user_id = (select auth.uid())) or list_id = any ((select hope_sync.task_lists_scopes('editor'))::uuid[]));

-- The write triggers of a scoped table: the stream's lock before nextval (the owner's when
-- list_id is null, the list's when set); a row changing streams takes both, in uuid text
-- order (two movers in opposite directions then wait instead of deadlocking), and leaves an
-- exit in the old one (public.sync_row_moved). A row moved out of a list into own rows becomes
-- the mover's (decision 0048: rows of a list belong to the list).
create or replace function public.tasks_before_write()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  stream uuid;
  left_stream uuid;
  lock_stream uuid;
begin
  if tg_op = 'UPDATE' then
    new.user_id := old.user_id;
    if old.list_id is not null and new.list_id is null then
      new.user_id := coalesce(auth.uid(), old.user_id);
    end if;
    left_stream := coalesce(old.list_id, old.user_id);
  else
    -- moddatetime moves it on update.
    new.updated_at := pg_catalog.now();
  end if;
  stream := coalesce(new.list_id, new.user_id);
  if left_stream is not null and left_stream <> stream then
    foreach lock_stream in array case when left_stream::text < stream::text then array[left_stream, stream] else array[stream, left_stream] end loop
      if not pg_catalog.pg_try_advisory_xact_lock(1752134757, pg_catalog.hashtext(lock_stream::text)) then
        if (lock_stream = stream and new.list_id is not null) or (lock_stream = left_stream and old.list_id is not null) then
          perform public.sync_wait_for_scope(lock_stream);
        else
          perform public.sync_wait_for_owner(lock_stream);
        end if;
      end if;
    end loop;
  elsif not pg_catalog.pg_try_advisory_xact_lock(1752134757, pg_catalog.hashtext(stream::text)) then
    if new.list_id is null then
      perform public.sync_wait_for_owner(stream);
    else
      perform public.sync_wait_for_scope(stream);
    end if;
  end if;
  new.server_seq := pg_catalog.nextval('public.sync_server_seq');
  return new;
end
$$;
revoke all on function public.tasks_before_write() from public, anon, authenticated, service_role;

-- A photo is in its task's stream: list_id is the task's, whatever the device sent.
create or replace function public.task_photos_before_write()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  stream uuid;
  left_stream uuid;
  lock_stream uuid;
begin
  new.list_id := (select t.list_id from public.tasks t where t.id = new.task_id);
  if tg_op = 'UPDATE' then
    new.user_id := old.user_id;
    if old.list_id is not null and new.list_id is null then
      new.user_id := coalesce(auth.uid(), old.user_id);
    end if;
    left_stream := coalesce(old.list_id, old.user_id);
  else
    -- moddatetime moves it on update.
    new.updated_at := pg_catalog.now();
  end if;
  stream := coalesce(new.list_id, new.user_id);
  if left_stream is not null and left_stream <> stream then
    foreach lock_stream in array case when left_stream::text < stream::text then array[left_stream, stream] else array[stream, left_stream] end loop
      if not pg_catalog.pg_try_advisory_xact_lock(1752134757, pg_catalog.hashtext(lock_stream::text)) then
        if (lock_stream = stream and new.list_id is not null) or (lock_stream = left_stream and old.list_id is not null) then
          perform public.sync_wait_for_scope(lock_stream);
        else
          perform public.sync_wait_for_owner(lock_stream);
        end if;
      end if;
    end loop;
  elsif not pg_catalog.pg_try_advisory_xact_lock(1752134757, pg_catalog.hashtext(stream::text)) then
    if new.list_id is null then
      perform public.sync_wait_for_owner(stream);
    else
      perform public.sync_wait_for_scope(stream);
    end if;
  end if;
  new.server_seq := pg_catalog.nextval('public.sync_server_seq');
  return new;
end
$$;
revoke all on function public.task_photos_before_write() from public, anon, authenticated, service_role;

create or replace trigger tasks_written_insert
  after insert on public.tasks
  referencing new table as written
  for each statement execute function public.sync_written_streams('list_id');
create or replace trigger tasks_written_update
  after update on public.tasks
  referencing new table as written
  for each statement execute function public.sync_written_streams('list_id');
create or replace trigger tasks_moved
  after update on public.tasks
  for each row when (old.list_id is distinct from new.list_id)
  execute function public.sync_row_moved('list_id');
create or replace trigger task_photos_written_insert
  after insert on public.task_photos
  referencing new table as written
  for each statement execute function public.sync_written_streams('list_id');
create or replace trigger task_photos_written_update
  after update on public.task_photos
  referencing new table as written
  for each statement execute function public.sync_written_streams('list_id');
create or replace trigger task_photos_moved
  after update on public.task_photos
  for each row when (old.list_id is distinct from new.list_id)
  execute function public.sync_row_moved('list_id');

-- Membership requests. Each takes the list's lock first (membership rows are in the list's
-- stream, and two owners leaving at once must not both see the other stay), checks the rules,
-- writes, and marks the list's members and the user concerned. Refusals (docs/PROTOCOL.md,
-- "Sharing"): 42501 not signed in, or not an owner of the list (a list the caller does not
-- belong to reads the same); 22023 a role that is not owner, editor or viewer; HS001 a change
-- of the caller's own membership through share or unshare; HS002 the last owner leaving.
-- Repeating a request changes nothing (a retry after a lost answer is safe).
create or replace function hope_sync.task_lists_share(scope uuid, member uuid, role text)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller uuid := auth.uid();
begin
  if caller is null then
    raise exception using errcode = '42501', message = 'sign in to share a list';
  end if;
  if task_lists_share.role is null or task_lists_share.role not in ('owner', 'editor', 'viewer') then
    raise exception using errcode = '22023', message = 'a member''s role is owner, editor or viewer';
  end if;
  if member is null or scope is null then
    raise exception using errcode = '22023', message = 'name the list and the member';
  end if;
  if member = caller then
    raise exception using errcode = 'HS001', message = 'you cannot add yourself to a list or change your own role';
  end if;
  perform hope_sync.lock_scope(scope);
  if not exists (select 1 from public.task_lists_members m
      where m.scope_id = scope and m.user_id = caller and m.role = 'owner' and m.deleted_ms is null) then
    raise exception using errcode = '42501', message = 'only an owner of this list can share it';
  end if;
  if exists (select 1 from public.task_lists_members m
      where m.scope_id = scope and m.user_id = member and m.role = task_lists_share.role and m.deleted_ms is null) then
    return;
  end if;
  insert into public.task_lists_members as m (scope_id, user_id, role, added_by, added_at, server_seq)
    values (scope, member, task_lists_share.role, caller, pg_catalog.now(), pg_catalog.nextval('public.sync_server_seq'))
    on conflict (scope_id, user_id) do update
      set role = excluded.role, added_by = excluded.added_by, server_seq = excluded.server_seq, deleted_ms = null,
        added_at = case when m.deleted_ms is null then m.added_at else excluded.added_at end;
  perform public.sync_mark_scope(scope);
  insert into public.sync_marks (user_id, xid) values (member, pg_catalog.pg_current_xact_id()) on conflict do nothing;
end
$$;
revoke all on function hope_sync.task_lists_share(uuid, uuid, text) from public, anon;
grant execute on function hope_sync.task_lists_share(uuid, uuid, text) to authenticated;

-- Ends a membership: the removed user's devices see the list gone at their next pull.
create or replace function hope_sync.task_lists_end(scope uuid, member uuid)
returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into public.sync_marks (user_id, xid)
    select m.user_id, pg_catalog.pg_current_xact_id() from public.task_lists_members m
    where m.scope_id = scope and m.deleted_ms is null
    on conflict do nothing;
  update public.task_lists_members m
    set deleted_ms = (pg_catalog.date_part('epoch', pg_catalog.statement_timestamp()) * 1000)::bigint,
      server_seq = pg_catalog.nextval('public.sync_server_seq')
    where m.scope_id = scope and m.user_id = member and m.deleted_ms is null;
end
$$;
revoke all on function hope_sync.task_lists_end(uuid, uuid) from public, anon, authenticated, service_role;

create or replace function hope_sync.task_lists_unshare(scope uuid, member uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller uuid := auth.uid();
begin
  if caller is null then
    raise exception using errcode = '42501', message = 'sign in to change who shares a list';
  end if;
  if member = caller then
    raise exception using errcode = 'HS001', message = 'to leave a list, leave it (task_lists_leave): unshare removes others';
  end if;
  perform hope_sync.lock_scope(scope);
  if not exists (select 1 from public.task_lists_members m
      where m.scope_id = scope and m.user_id = caller and m.role = 'owner' and m.deleted_ms is null) then
    raise exception using errcode = '42501', message = 'only an owner of this list can remove its members';
  end if;
  perform hope_sync.task_lists_end(scope, member);
end
$$;
revoke all on function hope_sync.task_lists_unshare(uuid, uuid) from public, anon;
grant execute on function hope_sync.task_lists_unshare(uuid, uuid) to authenticated;

create or replace function hope_sync.task_lists_leave(scope uuid)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  caller uuid := auth.uid();
begin
  if caller is null then
    raise exception using errcode = '42501', message = 'sign in to leave a list';
  end if;
  perform hope_sync.lock_scope(scope);
  if exists (select 1 from public.task_lists_members m
        where m.scope_id = scope and m.user_id = caller and m.role = 'owner' and m.deleted_ms is null)
      and not exists (select 1 from public.task_lists_members m
        where m.scope_id = scope and m.user_id <> caller and m.role = 'owner' and m.deleted_ms is null) then
    raise exception using errcode = 'HS002',
      message = 'you are this list''s last owner: make another member an owner before you leave, or delete the list';
  end if;
  perform hope_sync.task_lists_end(scope, caller);
end
$$;
revoke all on function hope_sync.task_lists_leave(uuid) from public, anon;
grant execute on function hope_sync.task_lists_leave(uuid) to authenticated;

-- The API's entry points (POST /rest/v1/rpc/task_lists_share with {"scope", "member",
-- "role"}): security invoker, so nothing in the exposed schema runs as its owner.
create or replace function public.task_lists_share(scope uuid, member uuid, role text)
returns void
language sql
set search_path = ''
as $$
  select hope_sync.task_lists_share(scope, member, role);
$$;
revoke all on function public.task_lists_share(uuid, uuid, text) from public, anon;
grant execute on function public.task_lists_share(uuid, uuid, text) to authenticated;
create or replace function public.task_lists_unshare(scope uuid, member uuid)
returns void
language sql
set search_path = ''
as $$
  select hope_sync.task_lists_unshare(scope, member);
$$;
revoke all on function public.task_lists_unshare(uuid, uuid) from public, anon;
grant execute on function public.task_lists_unshare(uuid, uuid) to authenticated;
create or replace function public.task_lists_leave(scope uuid)
returns void
language sql
set search_path = ''
as $$
  select hope_sync.task_lists_leave(scope);
$$;
revoke all on function public.task_lists_leave(uuid) from public, anon;
grant execute on function public.task_lists_leave(uuid) to authenticated;

-- The pull (docs/PROTOCOL.md, "Sharing"). Without "@scopes" in `cursors` (an older build): as
-- before, every table named after its cursor, but only the rows that are the caller's alone:
-- own rows (list_id null) and the rows of lists whose only member is the caller, so an old
-- build keeps syncing what it made and never sees another user's row. With "@scopes": the
-- named tables are the caller's own stream (rows and exits), and "scopes" pages every list the
-- caller is a member of now, each table after that list's cursor for it (a list without one
-- starts at 0: the caller joined it); a list the device knew that is not listed ended for it.
-- Each page holds a stream's rows and exits in server_seq order under one limit. The idle
-- answer is the same for both: one index lookup of the caller's marks.
create or replace function public.sync_pull(cursors jsonb, since bigint default null, page_limit integer default 1000)
returns json
language plpgsql
stable
set search_path = ''
as $$
declare
  me uuid := auth.uid();
  current_mark bigint;
  size integer := least(greatest(coalesce(page_limit, 1000), 1), 1000);
  scoped boolean := cursors ? '@scopes';
  alone uuid[] := '{}';
  pages json;
  scope_pages json;
begin
  if since is not null and not exists (
    select 1 from public.sync_marks m where m.user_id = me and m.xid >= since::text::xid8
  ) then
    return pg_catalog.json_build_object('mark', since, 'tables', '{}'::json);
  end if;
  current_mark := pg_catalog.pg_snapshot_xmin(pg_catalog.pg_current_snapshot())::text::bigint;
  if not scoped then
    alone := array(
      select m.scope_id from public.task_lists_members m
      where m.user_id = me and m.deleted_ms is null
        and not exists (select 1 from public.task_lists_members o where o.scope_id = m.scope_id and o.user_id <> me and o.deleted_ms is null));
  end if;
  select pg_catalog.json_object_agg(p.name, p.page) into pages from (
    select 'activities' as name, (
      select pg_catalog.json_build_object('rows', coalesce(pg_catalog.json_agg(r order by r.server_seq), '[]'::json), 'more', pg_catalog.count(*) = size)
      from (select t.* from public.activities t where t.server_seq > (cursors ->> 'activities')::bigint order by t.server_seq limit size) r
    ) as page
    where cursors ? 'activities'
    union all
    select 'sessions' as name, (
      select pg_catalog.json_build_object('rows', coalesce(pg_catalog.json_agg(r order by r.server_seq), '[]'::json), 'more', pg_catalog.count(*) = size)
      from (select t.* from public.sessions t where t.server_seq > (cursors ->> 'sessions')::bigint order by t.server_seq limit size) r
    ) as page
    where cursors ? 'sessions'
    union all
    select 'tasks' as name, public.sync_stream_page('tasks', (cursors ->> 'tasks')::bigint, null, case when scoped then me end, alone, size) as page
    where cursors ? 'tasks'
    union all
    select 'task_lists' as name, public.sync_stream_page('task_lists', (cursors ->> 'task_lists')::bigint, null, case when scoped then me end, alone, size) as page
    where cursors ? 'task_lists'
    union all
    select 'task_photos' as name, public.sync_stream_page('task_photos', (cursors ->> 'task_photos')::bigint, null, case when scoped then me end, alone, size) as page
    where cursors ? 'task_photos'
  ) p;
  if not scoped then
    return pg_catalog.json_build_object('mark', current_mark, 'tables', coalesce(pages, '{}'::json));
  end if;
  select pg_catalog.json_object_agg(s.scope_id, pg_catalog.json_build_object('role', s.role, 'tables', (
      select pg_catalog.json_object_agg(q.name, public.sync_stream_page(q.name, q.cursor, s.scope_id, null, '{}', size))
      from (
        select n.name, coalesce((c.known ->> n.name)::bigint, 0) as cursor
        from (values ('task_lists'), ('tasks'), ('task_photos'), ('task_lists_members')) n(name)
        cross join (select cursors -> '@scopes' -> s.scope_id::text as known) c
        where c.known is null or c.known ? n.name
      ) q)))
    into scope_pages
  from public.task_lists_members s
  where s.user_id = me and s.deleted_ms is null;
  return pg_catalog.json_build_object('mark', current_mark, 'tables', coalesce(pages, '{}'::json),
    'scopes', coalesce(scope_pages, '{}'::json));
end
$$;
revoke all on function public.sync_pull(jsonb, bigint, integer) from public, anon;
grant execute on function public.sync_pull(jsonb, bigint, integer) to authenticated;

-- One stream's page of one scoped table: rows and exits past `cursor`, in server_seq order, at
-- most `size` together. The stream is a list (`scope`), or an owner's own rows (`owner`: with
-- exits, the new request shape), or, for an older build, the caller's own rows and the lists in
-- `alone` (rows only, as it always read them). Security invoker: the policies still apply.
create or replace function public.sync_stream_page(table_name text, cursor bigint, scope uuid, owner uuid, alone uuid[], size integer)
returns json
language plpgsql
stable
set search_path = ''
as $$
declare
  page json;
  rows_query text;
  me uuid := auth.uid();
begin
  rows_query := case table_name
    when 'tasks' then 'select t.server_seq, pg_catalog.to_json(t) as r from public.tasks t where t.server_seq > $1 and '
      || case when scope is not null then 't.list_id = $2' when owner is not null then 't.list_id is null and t.user_id = $3'
        else '((t.list_id is null and t.user_id = $3) or t.list_id = any ($4))' end
    when 'task_photos' then 'select t.server_seq, pg_catalog.to_json(t) as r from public.task_photos t where t.server_seq > $1 and '
      || case when scope is not null then 't.list_id = $2' when owner is not null then 't.list_id is null and t.user_id = $3'
        else '((t.list_id is null and t.user_id = $3) or t.list_id = any ($4))' end
    when 'task_lists' then 'select t.server_seq, pg_catalog.to_json(t) as r from public.task_lists t where t.server_seq > $1 and '
      || case when scope is not null then 't.id = $2' else 't.id = any ($4)' end
    when 'task_lists_members' then 'select t.server_seq, pg_catalog.to_json(t) as r from public.task_lists_members t where t.server_seq > $1 and '
      || case when scope is not null then 't.scope_id = $2' else 'false' end
  end || ' order by t.server_seq limit $5';
  if scope is null and owner is null then
    execute 'select pg_catalog.json_build_object(''rows'', coalesce(pg_catalog.json_agg(p.r order by p.server_seq), ''[]''::json), ''more'', pg_catalog.count(*) = $5) from ('
      || rows_query || ') p'
      into page using cursor, scope, me, alone, size;
    return page;
  end if;
  execute 'select pg_catalog.json_build_object('
    || '''rows'', coalesce(pg_catalog.json_agg(p.r order by p.server_seq) filter (where p.r is not null), ''[]''::json), '
    || '''exits'', coalesce(pg_catalog.json_agg(pg_catalog.json_build_object(''id'', p.row_id, ''server_seq'', p.server_seq) order by p.server_seq) filter (where p.r is null), ''[]''::json), '
    || '''more'', pg_catalog.count(*) = $5) from ((select q.server_seq, q.r, null::uuid as row_id from (' || rows_query || ') q) union all ('
    || 'select e.server_seq, null::json, e.row_id from public.sync_exits e where e.table_name = $6 and e.server_seq > $1 and '
    || case when scope is not null then 'e.scope = $2' else 'e.scope is null and e.owner = $3' end
    || ' order by e.server_seq limit $5) order by 1 limit $5) p'
    into page using cursor, scope, me, alone, size, table_name;
  return page;
end
$$;
revoke all on function public.sync_stream_page(text, bigint, uuid, uuid, uuid[], integer) from public, anon;
grant execute on function public.sync_stream_page(text, bigint, uuid, uuid, uuid[], integer) to authenticated;

commit;
