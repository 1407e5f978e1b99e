"""A Supabase Realtime server for the tests: the Phoenix channel protocol as Realtime speaks it
(protocol 1.0.0, JSON objects; 2.0.0, JSON arrays and the binary user-broadcast frame), private
channels authorised as Realtime authorises them, and Broadcast from Database.

What it does as Realtime does (supabase/realtime: realtime_channel.ex, authorization.ex,
v2_serializer.ex, batch_broadcast.ex):
- the socket's `apikey` must be a JWT signed with the project's secret;
- a join checks the access token (signature, `exp` and `role`), then, for a private channel,
  runs the `realtime.messages` policies as the user: a message of the topic is inserted, read
  back with the user's role, claims and `realtime.topic` set, and rolled back; the join is
  refused unless the user sees it;
- the token expiring, or a refreshed token (`access_token`) that is invalid or loses the
  topic, ends the channel: a `system` error, then `phx_close`;
- a row inserted into `realtime.messages` is broadcast to the private channels of its topic
  once its transaction commits (here: LISTEN/NOTIFY, which PostgreSQL delivers at commit, in
  place of Realtime's logical replication);
- a client's broadcast on a channel (event `broadcast`, payload `{type, event, payload}`) goes
  to the other channels of its topic, and to its own with `self`; on a private channel only
  once the user may write: the `realtime.messages` insert policy, run as the user at the first
  broadcast (and again after a new token), and a refused broadcast reaches no one, unanswered;
  `ack` answers an accepted one (broadcast_handler.ex).

Failure switches, over plain HTTP on the same port (`GET /control?drop=1&delay_ms=200`): drop
broadcasts (a probability), delay them, send duplicates, withhold heartbeat replies, and
send v2 broadcasts as binary frames; `/kill` cuts every socket, `/expire` expires every
channel's token now. `/token?sub=…&role=…&exp_in=…` mints a token; `/stats` counts what happened.
"""

import argparse
import asyncio
import json
import random
import sys
import time
from urllib.parse import parse_qs, urlparse

import asyncpg
import jwt
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from serving import announce, exit_with_parent

NOTIFY_CHANNEL = "realtime_test_server_messages"
SOCKET_PATHS = ("/realtime/v1/websocket", "/socket/websocket")


class Switches:
    """The failure switches and the counters `/stats` reports."""

    def __init__(self):
        self.drop = 0.0
        self.delay_ms = 0
        self.duplicate = 0
        self.withhold_heartbeats = False
        self.binary = False
        self.stats = {
            "connections": 0,
            "joins": 0,
            "refused_joins": 0,
            "heartbeats": 0,
            "access_tokens": 0,
            "broadcasts": 0,
            "dropped": 0,
            "closed_channels": 0,
            "client_broadcasts": 0,
            "refused_broadcasts": 0,
        }

    def set(self, query):
        if "drop" in query:
            self.drop = float(query["drop"])
        if "delay_ms" in query:
            self.delay_ms = int(query["delay_ms"])
        if "duplicate" in query:
            self.duplicate = int(query["duplicate"])
        if "withhold_heartbeats" in query:
            self.withhold_heartbeats = query["withhold_heartbeats"] in ("1", "true")
        if "binary" in query:
            self.binary = query["binary"] in ("1", "true")

    def describe(self):
        return {
            "drop": self.drop,
            "delay_ms": self.delay_ms,
            "duplicate": self.duplicate,
            "withhold_heartbeats": self.withhold_heartbeats,
            "binary": self.binary,
        }


class TokenError(Exception):
    """Why a token is refused, worded as Realtime words it."""


class Channel:
    def __init__(self, client, topic, join_ref, private, token, claims, broadcast_config):
        self.client = client
        self.topic = topic
        self.sub_topic = topic[len("realtime:") :]
        self.join_ref = join_ref
        self.private = private
        self.token = token
        self.claims = claims
        self.expiry = None
        self.self_broadcast = bool(broadcast_config.get("self", False))
        self.ack_broadcast = bool(broadcast_config.get("ack", False))
        # Whether the user may broadcast here: asked at the first broadcast, as Realtime asks.
        self.may_write = None


class Client:
    def __init__(self, websocket, version, apikey):
        self.websocket = websocket
        self.version = version
        self.apikey = apikey
        self.channels = {}

    async def push(self, join_ref, ref, topic, event, payload):
        if self.version == "2.0.0":
            text = json.dumps([join_ref, ref, topic, event, payload])
        else:
            text = json.dumps({"topic": topic, "event": event, "payload": payload, "ref": ref, "join_ref": join_ref})
        try:
            await self.websocket.send(text)
        except ConnectionClosed:
            pass

    async def reply(self, message, status, response):
        await self.push(message["join_ref"], message["ref"], message["topic"], "phx_reply", {"status": status, "response": response})

    async def broadcast(self, channel, event, payload, meta, binary):
        """A broadcast to this client: `meta` (the message id) for one from the database, None for
        one from a client, which Realtime passes on as it was sent."""
        if self.version == "2.0.0" and binary:
            topic, user_event = channel.topic.encode(), event.encode()
            metadata = json.dumps(meta, separators=(",", ":")).encode() if meta is not None else b""
            frame = bytes([4, len(topic), len(user_event), len(metadata), 1]) + topic + user_event + metadata
            try:
                await self.websocket.send(frame + json.dumps(payload).encode())
            except ConnectionClosed:
                pass
            return
        body = {"type": "broadcast", "event": event, "payload": payload}
        if meta is not None:
            body["meta"] = meta
        await self.push(None, None, channel.topic, "broadcast", body)


class RealtimeServer:
    def __init__(self, database_url, secret, verbose):
        self.database_url = database_url
        self.secret = secret
        self.verbose = verbose
        self.switches = Switches()
        self.clients = set()
        self.pool = None
        self.listener = None

    def log(self, text):
        if self.verbose:
            print(f"realtime_server: {text}", file=sys.stderr, flush=True)

    # Tokens

    def verify(self, token):
        """The claims of a valid token, else TokenError with Realtime's words."""
        if not isinstance(token, str) or token.count(".") != 2:
            raise TokenError("MalformedJWT: The token provided is not a valid JWT")
        try:
            claims = jwt.decode(token, self.secret, algorithms=["HS256"], options={"verify_exp": False, "verify_aud": False})
        except jwt.InvalidSignatureError:
            raise TokenError("JwtSignatureError: Failed to validate JWT signature")
        except jwt.InvalidTokenError:
            raise TokenError("MalformedJWT: The token provided is not a valid JWT")
        if not isinstance(claims.get("exp"), int) or "role" not in claims:
            raise TokenError("InvalidJWTToken: Fields `role` and `exp` are required in JWT")
        left = claims["exp"] - int(time.time())
        if left <= 0:
            raise TokenError(f"InvalidJWTToken: Token has expired {-left} seconds ago")
        return claims

    def mint(self, query):
        now = int(time.time())
        claims = {"role": query.get("role", "authenticated"), "iat": now, "exp": now + int(query.get("exp_in", "3600"))}
        if "sub" in query:
            claims["sub"] = query["sub"]
        return jwt.encode(claims, self.secret, algorithm="HS256")

    # Authorisation, as Realtime runs it

    async def may_read(self, claims, sub_topic):
        """Realtime's read check: messages of the topic, inserted as the server, read back as the
        user; rolled back whatever happens."""
        async with self.pool.acquire() as connection:
            transaction = connection.transaction()
            await transaction.start()
            try:
                rows = await connection.fetch(
                    "insert into realtime.messages (topic, extension) values ($1, 'broadcast'), ($1, 'presence') returning id, extension",
                    sub_topic,
                )
                ids = {row["extension"]: row["id"] for row in rows}
                await connection.execute(
                    "select set_config('role', $1, true), set_config('realtime.topic', $2, true),"
                    " set_config('request.jwt.claims', $3, true), set_config('request.headers', '{}', true)",
                    claims["role"],
                    sub_topic,
                    json.dumps(claims),
                )
                seen = await connection.fetch(
                    "select id from realtime.messages where topic = $1"
                    " and ((extension = 'broadcast' and id = $2) or (extension = 'presence' and id = $3))",
                    sub_topic,
                    ids["broadcast"],
                    ids["presence"],
                )
                return len(seen) > 0
            except asyncpg.PostgresError as error:
                self.log(f"read check failed: {error}")
                return False
            finally:
                await transaction.rollback()

    async def may_write(self, claims, sub_topic):
        """Realtime's write check: a broadcast message of the topic inserted as the user; rolled
        back whatever happens."""
        async with self.pool.acquire() as connection:
            transaction = connection.transaction()
            await transaction.start()
            try:
                await connection.execute(
                    "select set_config('role', $1, true), set_config('realtime.topic', $2, true),"
                    " set_config('request.jwt.claims', $3, true), set_config('request.headers', '{}', true)",
                    claims["role"],
                    sub_topic,
                    json.dumps(claims),
                )
                await connection.execute("insert into realtime.messages (topic, extension) values ($1, 'broadcast')", sub_topic)
                return True
            except asyncpg.PostgresError as error:
                self.log(f"write check refused: {error}")
                return False
            finally:
                await transaction.rollback()

    # Channels

    async def join(self, client, message):
        topic = message["topic"]
        payload = message["payload"] or {}
        if not topic.startswith("realtime:") or topic == "realtime:":
            await client.reply(message, "error", {"reason": "TopicNameRequired: You must provide a topic name"})
            return
        config = payload.get("config") or {}
        private = bool(config.get("private", False))
        token = payload.get("access_token") or payload.get("user_token") or client.apikey
        try:
            claims = self.verify(token)
        except TokenError as error:
            self.switches.stats["refused_joins"] += 1
            await client.reply(message, "error", {"reason": str(error)})
            return
        channel = Channel(client, topic, message["join_ref"], private, token, claims, config.get("broadcast") or {})
        if private and not await self.may_read(claims, channel.sub_topic):
            self.switches.stats["refused_joins"] += 1
            await client.reply(
                message, "error", {"reason": f"Unauthorized: You do not have permissions to read from this Channel topic: {channel.sub_topic}"}
            )
            return
        old = client.channels.pop(topic, None)
        if old is not None:
            await self.close_channel(old)
        client.channels[topic] = channel
        self.schedule_expiry(channel)
        self.switches.stats["joins"] += 1
        await client.reply(message, "ok", {"postgres_changes": []})
        if (config.get("presence") or {}).get("enabled"):
            await client.push(channel.join_ref, None, topic, "presence_state", {})

    def schedule_expiry(self, channel):
        if channel.expiry is not None:
            channel.expiry.cancel()
        seconds = max(0, channel.claims["exp"] - time.time())

        async def expire():
            await asyncio.sleep(seconds)
            await self.shut_down(channel, "Token has expired 0 seconds ago")

        channel.expiry = asyncio.create_task(expire())

    async def refresh(self, client, message):
        channel = client.channels.get(message["topic"])
        token = (message["payload"] or {}).get("access_token")
        if channel is None or token is None or token == channel.token or token.startswith("sb_"):
            return
        self.switches.stats["access_tokens"] += 1
        try:
            claims = self.verify(token)
        except TokenError as error:
            await self.shut_down(channel, str(error))
            return
        if channel.private and not await self.may_read(claims, channel.sub_topic):
            await self.shut_down(channel, f"You no longer have permission to read from this Channel topic: {channel.sub_topic}")
            return
        channel.token, channel.claims, channel.may_write = token, claims, None
        self.schedule_expiry(channel)

    async def shut_down(self, channel, reason):
        """Realtime's shutdown_response: a system error, then the channel closes."""
        if channel.client.channels.get(channel.topic) is not channel:
            return
        del channel.client.channels[channel.topic]
        await channel.client.push(
            channel.join_ref, None, channel.topic, "system", {"extension": "system", "status": "error", "message": reason, "channel": channel.sub_topic}
        )
        await self.close_channel(channel)

    async def close_channel(self, channel):
        if channel.expiry is not None:
            channel.expiry.cancel()
        self.switches.stats["closed_channels"] += 1
        await channel.client.push(channel.join_ref, channel.join_ref, channel.topic, "phx_close", {})

    # The socket

    async def handle(self, client, message):
        topic, event = message["topic"], message["event"]
        if topic == "phoenix" and event == "heartbeat":
            self.switches.stats["heartbeats"] += 1
            if not self.switches.withhold_heartbeats:
                await client.reply(message, "ok", {})
        elif event == "phx_join":
            await self.join(client, message)
        elif topic not in client.channels:
            await client.reply(message, "error", {"reason": "unmatched topic"})
        elif event == "access_token":
            await self.refresh(client, message)
        elif event == "broadcast":
            await self.client_broadcast(client.channels[topic], message)
        elif event == "phx_leave":
            channel = client.channels.pop(topic)
            if channel.expiry is not None:
                channel.expiry.cancel()
            await client.reply(message, "ok", {})

    @staticmethod
    def decode(raw):
        if isinstance(raw, bytes):
            # A client's binary frame (a user broadcast push, type 3): nothing this server relays.
            return None
        frame = json.loads(raw)
        if isinstance(frame, list):
            join_ref, ref, topic, event, payload = frame[:5]
            return {"join_ref": join_ref, "ref": ref, "topic": topic, "event": event, "payload": payload}
        return {key: frame.get(key) for key in ("join_ref", "ref", "topic", "event", "payload")}

    async def serve_socket(self, websocket):
        query = parse_qs(urlparse(websocket.request.path).query)
        apikey = query.get("apikey", [None])[0] or websocket.request.headers.get("apikey")
        client = Client(websocket, query.get("vsn", ["1.0.0"])[0], apikey)
        self.clients.add(client)
        self.switches.stats["connections"] += 1
        try:
            async for raw in websocket:
                message = self.decode(raw)
                if message is not None:
                    await self.handle(client, message)
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(client)
            for channel in client.channels.values():
                if channel.expiry is not None:
                    channel.expiry.cancel()

    # Broadcast from a client

    async def client_broadcast(self, channel, message):
        payload = message["payload"] or {}
        if channel.private:
            if channel.may_write is None:
                channel.may_write = await self.may_write(channel.claims, channel.sub_topic)
            if not channel.may_write:
                self.switches.stats["refused_broadcasts"] += 1
                return
        self.switches.stats["client_broadcasts"] += 1
        for client in list(self.clients):
            for other in list(client.channels.values()):
                if other.topic != channel.topic or other.private != channel.private:
                    continue
                if other is channel and not channel.self_broadcast:
                    continue
                self.deliver(client, other, {"event": payload.get("event"), "payload": payload.get("payload"), "id": None})
        if channel.ack_broadcast:
            await channel.client.reply(message, "ok", {})

    # Broadcast from Database

    def committed(self, connection, pid, channel_name, payload):
        message = json.loads(payload)
        if message.get("extension") != "broadcast":
            return
        for client in list(self.clients):
            for channel in list(client.channels.values()):
                if channel.sub_topic == message["topic"] and channel.private == bool(message.get("private")):
                    self.deliver(client, channel, message)

    def deliver(self, client, channel, message):
        switches = self.switches
        if random.random() < switches.drop:
            switches.stats["dropped"] += 1
            return
        copies = 1 + switches.duplicate
        delay = switches.delay_ms / 1000
        binary = switches.binary

        async def send():
            if delay > 0:
                await asyncio.sleep(delay)
            for _ in range(copies):
                switches.stats["broadcasts"] += 1
                meta = {"id": message["id"]} if message.get("id") is not None else None
                await client.broadcast(channel, message["event"], message["payload"], meta, binary)

        asyncio.create_task(send())

    async def listen(self):
        """Delivery after commit: a trigger on realtime.messages notifies, and PostgreSQL hands
        a notification to listeners only when its transaction commits."""
        self.listener = await asyncpg.connect(self.database_url)
        await self.listener.execute(
            f"""
            set role supabase_realtime_admin;
            create or replace function realtime.test_server_notify() returns trigger language plpgsql as $$
            begin
              perform pg_notify('{NOTIFY_CHANNEL}', json_build_object(
                'id', new.id, 'topic', new.topic, 'event', new.event, 'payload', new.payload,
                'private', new.private, 'extension', new.extension)::text);
              return null;
            end
            $$;
            create or replace trigger test_server_notify after insert on realtime.messages
              for each row execute function realtime.test_server_notify();
            reset role;
            """
        )
        await self.listener.add_listener(NOTIFY_CHANNEL, self.committed)

    # Plain HTTP: the switches, tokens and counts

    async def process_request(self, connection, request):
        url = urlparse(request.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if url.path in SOCKET_PATHS:
            try:
                self.verify(query.get("apikey") or request.headers.get("apikey"))
            except TokenError as error:
                return connection.respond(403, f"{error}\n")
            return None
        if url.path == "/control":
            self.switches.set(query)
            return connection.respond(200, json.dumps(self.switches.describe()) + "\n")
        if url.path == "/kill":
            for client in list(self.clients):
                client.websocket.transport.abort()
            return connection.respond(200, "killed\n")
        if url.path == "/expire":
            for client in list(self.clients):
                for channel in list(client.channels.values()):
                    await self.shut_down(channel, "Token has expired 0 seconds ago")
            return connection.respond(200, "expired\n")
        if url.path == "/token":
            return connection.respond(200, self.mint(query))
        if url.path == "/stats":
            stats = dict(self.switches.stats, channels=sum(len(client.channels) for client in self.clients), sockets=len(self.clients))
            return connection.respond(200, json.dumps(stats) + "\n")
        return connection.respond(404, "not found\n")


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--jwt-secret", required=True)
    parser.add_argument("--verbose", action="store_true")
    arguments = parser.parse_args()
    server = RealtimeServer(arguments.database_url, arguments.jwt_secret, arguments.verbose)
    server.pool = await asyncpg.create_pool(arguments.database_url, min_size=1, max_size=4)
    await server.listen()
    async with serve(server.serve_socket, "127.0.0.1", 0, process_request=server.process_request, ping_interval=None) as running:
        announce(running.sockets[0].getsockname()[1])
        await exit_with_parent()


if __name__ == "__main__":
    asyncio.run(main())
