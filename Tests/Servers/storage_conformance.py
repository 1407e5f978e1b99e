"""Checks the test Storage server with Supabase's own Python Storage client (storage3), so the fake
answers as Storage does for a client that is not ours: uploads, downloads, both not-found shapes,
duplicates, row-level security between two users, immutable objects, an expired token.

    python storage_conformance.py STORAGE_URL JWT_SECRET USER_A USER_B BUCKET

Prints one line per check and `conformance ok` at the end; exits 1 at the first failure.
"""

import asyncio
import hashlib
import json
import sys
import time
import urllib.request

import jwt
from storage3 import AsyncStorageClient
from storage3.exceptions import StorageApiError


def token(secret, user, seconds=3600):
    claims = {"sub": user, "role": "authenticated", "aud": "authenticated", "exp": int(time.time()) + seconds}
    return jwt.encode(claims, secret, algorithm="HS256")


def client(url, secret, user, seconds=3600):
    headers = {"apikey": "anon", "Authorization": f"Bearer {token(secret, user, seconds)}"}
    return AsyncStorageClient(f"{url.rstrip('/')}/storage/v1/", headers)


def control(url, switches):
    request = urllib.request.Request(
        f"{url.rstrip('/')}/_test/control", data=json.dumps(switches).encode(), headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request).read()


async def refused(call, status, code=None):
    """The call fails as Storage fails it: storage3's StorageApiError with this status (and code)."""
    try:
        await call
    except StorageApiError as error:
        assert str(error.status) == str(status), f"status {error.status}, expected {status}: {error.message}"
        assert code is None or error.code == code, f"code {error.code}, expected {code}"
        return
    raise AssertionError(f"expected a refusal with status {status}")


async def main():
    url, secret, alice, bob, bucket = sys.argv[1:6]
    data = b"bytes of a photo \x00\xff" * 1000
    name = hashlib.sha256(data).hexdigest() + ".jpg"
    path = f"{alice}/{name}"
    a = client(url, secret, alice).from_(bucket)
    b = client(url, secret, bob).from_(bucket)

    uploaded = await a.upload(path, data, {"content-type": "image/jpeg"})
    assert uploaded.full_path == f"{bucket}/{path}", uploaded
    print("upload into the owner's folder")
    assert await a.download(path) == data
    print("download by the owner")
    assert await a.exists(path) and not await a.exists(f"{alice}/{'0' * 64}.jpg")
    print("exists, and a missing object reads as not there")
    await refused(a.upload(path, data), 409)
    print("a second upload of the same name is a duplicate")
    await refused(a.download(f"{alice}/{'0' * 64}.jpg"), 404, "not_found")
    print("a missing object: HTTP 400 whose body says 404, not_found")
    await refused(b.download(path), 404, "not_found")
    print("another user's object reads as not found")
    await refused(b.upload(path, b"other bytes"), 403)
    await refused(b.upload(f"{alice}/{'1' * 64}.jpg", b"other bytes"), 403)
    print("nobody writes into another user's folder")
    await refused(a.upload(path, b"replaced", {"upsert": "true"}), 403)
    await refused(a.update(path, b"replaced"), 403)
    assert await a.remove([path]) == []
    assert await a.download(path) == data
    print("an object is never replaced or removed")
    listed = await a.list(alice)
    assert [entry["name"] for entry in listed] == [name], listed
    assert await b.list(alice) == []
    print("listing a folder shows the owner's objects to the owner only")
    await refused(client(url, secret, alice, seconds=-60).from_(bucket).download(path), 400, "InvalidJWT")
    print("an expired token is refused")
    await refused(client(url, secret, alice).from_("no-such-bucket").download(path), 404)
    print("a missing bucket is not found")
    control(url, {"not_found_shape": "404"})
    try:
        await refused(a.download(f"{alice}/{'0' * 64}.jpg"), 404)
        assert not await a.exists(f"{alice}/{'0' * 64}.jpg")
    finally:
        control(url, {"not_found_shape": "400"})
    print("the newer routes' shape: HTTP 404")
    control(url, {"fail_next": 1, "fail_status": 503})
    await refused(a.download(path), 503)
    print("a switched failure answers 503")
    print("conformance ok")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except AssertionError as failure:
        print(f"conformance failed: {failure}")
        sys.exit(1)
