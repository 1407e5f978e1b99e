"""A stand-in for Supabase Storage, for tests: its REST API as its clients call it (upload, download,
info, list, remove), bytes kept on disk and metadata in PostgreSQL's `storage.objects`.

Each request is one transaction run with the caller's role and JWT claims, as Storage runs it, so
row-level security on `storage.objects` (the generated policies) decides who may do what. Errors
come in Storage's shapes: most refusals as HTTP 400 with the real status in the body
(`{"statusCode":"404","error":"not_found","code":"NoSuchKey",...}`), or, switched to the newer
routes' shape, as that status itself. Test switches (`POST /_test/control`) make the failures a
real one can have: 5xx answers, slowness, an upload cut mid-way, expired tokens.

    python storage_server.py DATABASE_URL DATA_DIR JWT_SECRET
"""

import asyncio
import json
import os
import sys
import time
import uuid

import asyncpg
import jwt
from aiohttp import web

from serving import announce, exit_with_parent

CHUNK = 1 << 16


class Switches:
    """The failure switches, set by the tests."""

    def __init__(self):
        self.fail_next = 0
        self.fail_status = 503
        self.delay_ms = 0
        self.cut_after_bytes = None
        # Uploads read no faster than this (bytes a second), so a test can act mid-upload.
        self.upload_bytes_per_second = None
        self.tokens_expired = False
        # "400": Storage's usual 400 with the status in the body; "404": the status itself.
        self.not_found_shape = "400"


class StorageError(Exception):
    def __init__(self, status, error, code, message):
        super().__init__(message)
        self.status, self.error, self.code, self.message = status, error, code, message


def not_found(what="Object not found"):
    return StorageError(404, "not_found", "NoSuchKey", what)


class Storage:
    def __init__(self, pool, data_dir, secret):
        self.pool, self.data_dir, self.secret = pool, data_dir, secret
        self.switches = Switches()
        self.requests = []

    # -- the answers ----------------------------------------------------------------------------

    def error_response(self, error):
        body = {"statusCode": str(error.status), "error": error.error, "code": error.code, "message": error.message}
        if error.status >= 500:
            return web.json_response(body, status=error.status)
        if error.status == 404 and self.switches.not_found_shape == "404":
            return web.json_response({"code": error.code, "message": error.message}, status=404)
        # Storage's error handler answers every other refusal with 400.
        return web.json_response(body, status=400)

    @web.middleware
    async def middleware(self, request, handler):
        if request.path.startswith("/_test/"):
            return await handler(request)
        entry = {"method": request.method, "path": request.path, "status": None, "received": 0}
        request["log"] = entry
        self.requests.append(entry)
        try:
            if self.switches.delay_ms:
                await asyncio.sleep(self.switches.delay_ms / 1000)
            if self.switches.fail_next > 0:
                self.switches.fail_next -= 1
                status = self.switches.fail_status
                raise StorageError(status, "InternalError", "InternalError", f"switched to fail ({status})")
            response = await handler(request)
        except StorageError as error:
            response = self.error_response(error)
            # A refusal may come before the body is read: the connection cannot be reused, since
            # the client may have sent part of that body or none of it.
            response.force_close()
        except ConnectionResetError:
            # The client went away mid-request (a cut or killed upload, which tests do on
            # purpose): nobody is left to answer (the log keeps no status), and aiohttp would log a
            # traceback for it.
            entry["status"] = None
            response = web.Response(status=400)
            response.force_close()
            return response
        entry["status"] = response.status
        return response

    # -- who is asking --------------------------------------------------------------------------

    def claims(self, request):
        """The caller's JWT claims, checked as Storage checks them (HS256, expiry)."""
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            return {"role": "anon"}
        token = header[len("Bearer "):]
        try:
            claims = jwt.decode(token, self.secret, algorithms=["HS256"], options={"verify_aud": False})
        except jwt.ExpiredSignatureError:
            raise StorageError(400, "InvalidJWT", "InvalidJWT", '"exp" claim timestamp check failed')
        except jwt.InvalidTokenError as error:
            raise StorageError(400, "InvalidJWT", "InvalidJWT", f"invalid JWT: {error}")
        if self.switches.tokens_expired:
            raise StorageError(400, "InvalidJWT", "InvalidJWT", '"exp" claim timestamp check failed')
        if claims.get("role") not in ("anon", "authenticated", "service_role"):
            raise StorageError(400, "InvalidJWT", "InvalidJWT", "unknown role")
        return claims

    async def as_caller(self, connection, claims):
        """The transaction runs as the caller, so the policies decide."""
        await connection.execute(
            "select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
            claims.get("role", "anon"), json.dumps(claims))

    async def check_bucket(self, connection, bucket):
        # Storage reads the bucket as its own superuser: a missing one is "Bucket not found".
        if await connection.fetchval("select 1 from storage.buckets where id = $1", bucket) is None:
            raise StorageError(404, "Bucket not found", "NoSuchBucket", "Bucket not found")

    def place(self, bucket, name):
        """Where an object's bytes go. Storage's key validation takes `.` and `..` as parts of a
        name (the policies decide who may write there), so they are kept, under names of their
        own on disk, never followed as folders."""
        parts = name.split("/")
        if not name or "" in parts:
            raise StorageError(400, "InvalidKey", "InvalidKey", f"Invalid key: {name}")
        return os.path.join(self.data_dir, bucket, *(part.replace(".", "%2E") if part in (".", "..") else part for part in parts))

    # -- routes -----------------------------------------------------------------------------------

    async def upload(self, request):
        bucket, name = request.match_info["bucket"], request.match_info["name"]
        claims = self.claims(request)
        upsert = request.headers.get("x-upsert", "false").lower() == "true" or request.method == "PUT"
        path = self.place(bucket, name)
        async with self.pool.acquire() as connection:
            await self.check_bucket(connection, bucket)
        incoming = os.path.join(self.data_dir, ".incoming", uuid.uuid4().hex)
        os.makedirs(os.path.dirname(incoming), exist_ok=True)
        try:
            size, content_type = await self.receive(request, incoming)
            if size is None:
                return web.Response(status=400)  # the connection was cut; nothing is kept
            metadata = {
                "size": size, "mimetype": content_type, "cacheControl": request.headers.get("cache-control", "no-cache"),
                "eTag": f'"{uuid.uuid4().hex}"', "lastModified": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            }
            async with self.pool.acquire() as connection, connection.transaction():
                await self.as_caller(connection, claims)
                sub = claims.get("sub")
                insert = """
                    insert into storage.objects (bucket_id, name, owner, owner_id, metadata)
                    values ($1, $2, $3::uuid, $4, $5::jsonb)"""
                if upsert:
                    insert += """ on conflict (bucket_id, name) do update
                        set metadata = excluded.metadata, updated_at = now(), owner = excluded.owner, owner_id = excluded.owner_id"""
                try:
                    object_id = await connection.fetchval(insert + " returning id", bucket, name, sub, sub, json.dumps(metadata))
                except asyncpg.UniqueViolationError:
                    raise StorageError(409, "Duplicate", "KeyAlreadyExists", "The resource already exists")
                except asyncpg.InsufficientPrivilegeError:
                    raise StorageError(403, "Unauthorized", "AccessDenied", "new row violates row-level security policy")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                os.replace(incoming, path)
            return web.json_response({"Key": f"{bucket}/{name}", "Id": str(object_id)})
        finally:
            if os.path.exists(incoming):
                os.remove(incoming)

    async def receive(self, request, incoming):
        """Streams the body (raw, or the `file` part of a form as storage3 sends it) to disk;
        None when the cut switch drops the connection part-way."""
        content_type = request.headers.get("Content-Type", "application/octet-stream")
        if content_type.startswith("multipart/form-data"):
            reader = await request.multipart()
            part = await reader.next()
            while part is not None and part.name != "file":
                await part.release()
                part = await reader.next()
            if part is None:
                raise StorageError(400, "InvalidRequest", "InvalidRequest", "No content provided")
            content_type = part.headers.get("Content-Type", "application/octet-stream")

            async def chunks():
                while chunk := await part.read_chunk(CHUNK):
                    yield chunk
        else:
            chunks = lambda: request.content.iter_chunked(CHUNK)  # noqa: E731
        size = 0
        started = time.monotonic()
        with open(incoming, "wb") as output:
            async for chunk in chunks():
                output.write(chunk)
                size += len(chunk)
                request["log"]["received"] = size
                rate = self.switches.upload_bytes_per_second
                if rate:
                    await asyncio.sleep(max(0, size / rate - (time.monotonic() - started)))
                cut = self.switches.cut_after_bytes
                if cut is not None and size >= cut:
                    self.switches.cut_after_bytes = None
                    request.transport.abort()
                    return None, content_type
        return size, content_type

    async def visible(self, connection, claims, bucket, name):
        await self.as_caller(connection, claims)
        row = await connection.fetchrow(
            "select id, name, bucket_id, metadata, created_at, updated_at from storage.objects where bucket_id = $1 and name = $2",
            bucket, name)
        # A row the policies hide reads as not there, as Storage answers it.
        if row is None:
            raise not_found()
        return row

    async def download(self, request):
        bucket, name = request.match_info["bucket"], request.match_info["name"]
        claims = self.claims(request)
        path = self.place(bucket, name)
        async with self.pool.acquire() as connection, connection.transaction():
            await self.check_bucket(connection, bucket)
            row = await self.visible(connection, claims, bucket, name)
        metadata = json.loads(row["metadata"] or "{}")
        if not os.path.exists(path):
            raise not_found()
        headers = {"Content-Type": metadata.get("mimetype", "application/octet-stream"), "ETag": metadata.get("eTag", "")}
        if request.method == "HEAD":
            return web.Response(headers={**headers, "Content-Length": str(os.path.getsize(path))})
        return web.FileResponse(path, headers=headers, chunk_size=CHUNK)

    async def info(self, request):
        bucket, name = request.match_info["bucket"], request.match_info["name"]
        claims = self.claims(request)
        async with self.pool.acquire() as connection, connection.transaction():
            await self.check_bucket(connection, bucket)
            row = await self.visible(connection, claims, bucket, name)
        metadata = json.loads(row["metadata"] or "{}")
        return web.json_response({
            "id": str(row["id"]), "name": row["name"], "bucket_id": row["bucket_id"], "size": metadata.get("size"),
            "content_type": metadata.get("mimetype"), "etag": metadata.get("eTag"), "metadata": metadata,
            "created_at": row["created_at"].isoformat(), "last_modified": row["updated_at"].isoformat(),
        })

    async def list(self, request):
        bucket = request.match_info["bucket"]
        claims = self.claims(request)
        options = await request.json()
        prefix = options.get("prefix", "").strip("/")
        async with self.pool.acquire() as connection, connection.transaction():
            await self.check_bucket(connection, bucket)
            await self.as_caller(connection, claims)
            rows = await connection.fetch(
                """select id, name, metadata, created_at, updated_at from storage.objects
                   where bucket_id = $1 and name like $2 || '%' order by name limit $3 offset $4""",
                bucket, prefix + "/" if prefix else "", int(options.get("limit", 100)), int(options.get("offset", 0)))
        start = len(prefix) + 1 if prefix else 0
        return web.json_response([
            {"name": row["name"][start:], "id": str(row["id"]), "metadata": json.loads(row["metadata"] or "{}"),
             "created_at": row["created_at"].isoformat(), "updated_at": row["updated_at"].isoformat()}
            for row in rows if "/" not in row["name"][start:]
        ])

    async def remove(self, request):
        bucket = request.match_info["bucket"]
        claims = self.claims(request)
        prefixes = (await request.json()).get("prefixes", [])
        async with self.pool.acquire() as connection, connection.transaction():
            await self.check_bucket(connection, bucket)
            await self.as_caller(connection, claims)
            # The policies decide: with no delete policy, nothing goes.
            rows = await connection.fetch(
                "delete from storage.objects where bucket_id = $1 and name = any($2::text[]) returning id, name", bucket, prefixes)
        for row in rows:
            path = self.place(bucket, row["name"])
            if os.path.exists(path):
                os.remove(path)
        return web.json_response([{"name": row["name"], "id": str(row["id"])} for row in rows])

    # -- test controls ----------------------------------------------------------------------------

    async def control(self, request):
        for key, value in (await request.json()).items():
            if not hasattr(self.switches, key):
                raise web.HTTPBadRequest(text=f"no switch {key}")
            setattr(self.switches, key, value)
        return web.json_response(vars(self.switches))

    async def log(self, request):
        return web.json_response(self.requests)

    async def remove_behind_backs(self, request):
        """An object lost or deleted by an operator: its row and its bytes go."""
        body = await request.json()
        async with self.pool.acquire() as connection:
            await connection.execute("delete from storage.objects where bucket_id = $1 and name = $2", body["bucket"], body["name"])
        path = self.place(body["bucket"], body["name"])
        if os.path.exists(path):
            os.remove(path)
        return web.json_response({})


async def main():
    database_url, data_dir, secret = sys.argv[1:4]
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=8)
    storage = Storage(pool, data_dir, secret)
    app = web.Application(middlewares=[storage.middleware])
    name = "{name:.+}"
    app.router.add_post(f"/storage/v1/object/list/{{bucket}}", storage.list)
    app.router.add_get(f"/storage/v1/object/info/{{bucket}}/{name}", storage.info)
    app.router.add_get(f"/storage/v1/object/authenticated/{{bucket}}/{name}", storage.download)
    app.router.add_post(f"/storage/v1/object/{{bucket}}/{name}", storage.upload)
    app.router.add_put(f"/storage/v1/object/{{bucket}}/{name}", storage.upload)
    app.router.add_get(f"/storage/v1/object/{{bucket}}/{name}", storage.download)
    app.router.add_delete("/storage/v1/object/{bucket}", storage.remove)
    app.router.add_post("/_test/control", storage.control)
    app.router.add_get("/_test/requests", storage.log)
    app.router.add_post("/_test/remove", storage.remove_behind_backs)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    announce(site._server.sockets[0].getsockname()[1])
    await exit_with_parent()


if __name__ == "__main__":
    asyncio.run(main())
