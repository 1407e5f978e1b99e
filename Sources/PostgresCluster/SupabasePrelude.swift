/// What a Supabase project has before any app SQL runs, so a plain PostgreSQL can stand in for
/// one: the API roles, `auth.uid()` read from the request's JWT claims, the `extensions` schema
/// with moddatetime, and Supabase's default privileges (every role may do everything on new
/// public tables, row-level security being the guard).
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
        """
}
