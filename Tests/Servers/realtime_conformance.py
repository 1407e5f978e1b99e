"""Checks the test Realtime server (realtime_server.py) with Supabase's own Python client, so the
server is held to what Supabase's clients expect rather than shaped to ours: a private channel
joins with a user's token, a broadcast from the database arrives after its commit and not before,
a rolled-back one never does, another user's topic is refused, a refreshed token keeps the
channel, and an expired one ends it; a client's broadcast reaches the topic's other channels (its
own only with `self`), never another topic, and nobody when the user may not write the topic. Protocol 2.0.0, which this client does not speak, is checked
with the frames of Supabase's protocol documentation, the binary user broadcast included. Last,
each failure switch does what it says: drop, duplicate, delay, withhold heartbeat replies, kill.

Prints one line per check; exits 1 at the first that fails.

    realtime_conformance.py --url http://127.0.0.1:PORT --database-url postgresql://...
"""

import argparse
import asyncio
import json
import sys
import time
import urllib.request
import uuid

import asyncpg
from realtime import AsyncRealtimeClient, RealtimeSubscribeStates
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)
    print(f"ok {what}", flush=True)


def fetch(url):
    with urllib.request.urlopen(url) as answer:
        return answer.read().decode()


async def until(predicate, seconds=5.0):
    for _ in range(int(seconds / 0.01)):
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


async def send_as(database_url, user, topic, payload, commit=True, hold=0.2):
    """realtime.send as the user would run it inside a write: the poke of a statement. The
    transaction stays open `hold` seconds before it ends."""
    connection = await asyncpg.connect(database_url)
    try:
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute(
            "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
            json.dumps({"role": "authenticated", "sub": user}),
        )
        await connection.execute("select realtime.send($1::jsonb, 'poke', $2, true)", json.dumps(payload), topic)
        await asyncio.sleep(hold)  # a transaction still open: nothing may arrive yet
        pending = True
        if commit:
            await transaction.commit()
        else:
            await transaction.rollback()
        return pending
    finally:
        await connection.close()


async def with_supabase_client(url, database_url):
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    anon = fetch(f"{url}/token?role=anon")
    alice_token = fetch(f"{url}/token?sub={alice}")
    client = AsyncRealtimeClient(f"{url}/realtime/v1", token=anon, auto_reconnect=False)
    await client.connect()
    await client.set_auth(alice_token)

    states, pokes = [], []
    channel = client.channel(f"sync:{alice}", {"config": {"private": True, "broadcast": {"ack": False, "self": False}}})
    channel.on_broadcast("poke", lambda payload: pokes.append(payload))
    await channel.subscribe(lambda state, error: states.append((state, error)))
    check(states and states[-1][0] == RealtimeSubscribeStates.SUBSCRIBED, "a private channel joins with the user's token")

    arrived_early = []

    async def watch_while_open():
        await asyncio.sleep(0.15)
        arrived_early.append(len(pokes))

    watcher = asyncio.create_task(watch_while_open())
    await send_as(database_url, alice, f"sync:{alice}", {"table": "activities", "server_seq": 7})
    await watcher
    check(arrived_early == [0], "nothing arrives before the commit")
    check(await until(lambda: len(pokes) == 1), "a broadcast from the database arrives after the commit")
    check(pokes[0]["event"] == "poke" and pokes[0]["payload"]["table"] == "activities", "it carries its event and payload")
    check("id" in pokes[0].get("meta", {}), "with the message's id in meta")

    await send_as(database_url, alice, f"sync:{alice}", {"table": "activities", "server_seq": 8}, commit=False)
    await asyncio.sleep(0.3)
    check(len(pokes) == 1, "a rolled-back broadcast never arrives")

    intruder = client.channel(f"sync:{bob}", {"config": {"private": True}})
    intruder_states = []
    await intruder.subscribe(lambda state, error: intruder_states.append((state, error)))
    check(
        intruder_states and intruder_states[-1][0] == RealtimeSubscribeStates.CHANNEL_ERROR and "Unauthorized" in str(intruder_states[-1][1]),
        "another user's topic is refused",
    )

    await asyncio.sleep(1.1)  # a token minted a second later differs
    await client.set_auth(fetch(f"{url}/token?sub={alice}"))
    await asyncio.sleep(0.3)
    stats = json.loads(fetch(f"{url}/stats"))
    check(stats["access_tokens"] == 1 and states[-1][0] == RealtimeSubscribeStates.SUBSCRIBED, "a refreshed token keeps the channel")

    fetch(f"{url}/expire")
    check(
        await until(lambda: any(state in (RealtimeSubscribeStates.CHANNEL_ERROR, RealtimeSubscribeStates.CLOSED) for state, _ in states[1:])),
        "an expired token ends the channel",
    )
    await client.close()


async def with_client_broadcasts(url, database_url):
    """A device announcing its own write: Realtime's client broadcast on a private channel."""
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    anon = fetch(f"{url}/token?role=anon")

    async def joined(user, config):
        client = AsyncRealtimeClient(f"{url}/realtime/v1", token=anon, auto_reconnect=False)
        await client.connect()
        await client.set_auth(fetch(f"{url}/token?sub={user}"))
        received, states = [], []
        channel = client.channel(f"sync:{user}", {"config": {"private": True, "broadcast": config}})
        channel.on_broadcast("poke", lambda payload: received.append(payload))
        await channel.subscribe(lambda state, error: states.append(state))
        check(states and states[-1] == RealtimeSubscribeStates.SUBSCRIBED, f"client broadcasts: {user[:8]} joined")
        return client, channel, received

    sender_client, sender, sent_back = await joined(alice, {"ack": False, "self": False})
    other_client, _, other = await joined(alice, {"ack": False, "self": False})
    echo_client, echo, echoed = await joined(alice, {"ack": False, "self": True})
    bob_client, _, bobs = await joined(bob, {"ack": False, "self": False})

    await sender.send_broadcast("poke", {"table": "tasks", "server_seq": 3})
    check(await until(lambda: len(other) == 1), "client broadcasts: another device of the user gets it")
    check(other[0]["event"] == "poke" and other[0]["payload"] == {"table": "tasks", "server_seq": 3}, "client broadcasts: as it was sent")
    check(len(echoed) == 1, "client broadcasts: so does every channel of the topic")
    await asyncio.sleep(0.3)
    check(sent_back == [] and bobs == [], "client broadcasts: not back to its sender without self, nor to another topic")

    await echo.send_broadcast("poke", {"table": "tasks", "server_seq": 4})
    check(await until(lambda: len(echoed) == 2 and len(other) == 2), "client broadcasts: back to its sender with self")

    # A user who may read the topic but not write it (no insert on realtime.messages): the
    # broadcast reaches no one, and nothing answers.
    admin = await asyncpg.connect(database_url)
    try:
        await admin.execute("revoke insert on realtime.messages from authenticated")
        refused_client, refused, _ = await joined(alice, {"ack": True, "self": False})
        before = json.loads(fetch(f"{url}/stats"))["refused_broadcasts"]
        await refused.send_broadcast("poke", {"table": "tasks", "server_seq": 5})
        check(await until(lambda: json.loads(fetch(f"{url}/stats"))["refused_broadcasts"] == before + 1), "client broadcasts: a refused one is counted")
        await asyncio.sleep(0.3)
        check(len(other) == 2, "client broadcasts: and reaches no one")
        await refused_client.close()
    finally:
        await admin.execute("grant insert on realtime.messages to authenticated")
        await admin.close()
    for client in (sender_client, other_client, echo_client, bob_client):
        await client.close()


async def with_documented_v2_frames(url, database_url):
    alice = str(uuid.uuid4())
    anon = fetch(f"{url}/token?role=anon")
    token = fetch(f"{url}/token?sub={alice}")
    topic = f"realtime:sync:{alice}"
    async with connect(f"{url.replace('http', 'ws')}/realtime/v1/websocket?apikey={anon}&vsn=2.0.0") as socket:
        await socket.send(json.dumps([None, "26", "phoenix", "heartbeat", {}]))
        check(json.loads(await socket.recv()) == [None, "26", "phoenix", "phx_reply", {"status": "ok", "response": {}}], "v2: a heartbeat is answered")
        join = {
            "config": {"broadcast": {"ack": False, "self": False}, "presence": {"enabled": False}, "postgres_changes": [], "private": True},
            "access_token": token,
        }
        await socket.send(json.dumps(["3", "5", topic, "phx_join", join]))
        reply = json.loads(await socket.recv())
        check(reply[:4] == ["3", "5", topic, "phx_reply"] and reply[4]["status"] == "ok", "v2: a private join is answered as an array")

        await send_as(database_url, alice, f"sync:{alice}", {"table": "sessions", "server_seq": 3})
        frame = json.loads(await asyncio.wait_for(socket.recv(), 5))
        check(frame[:4] == [None, None, topic, "broadcast"] and frame[4]["event"] == "poke", "v2: a broadcast as a text array")

        fetch(f"{url}/control?binary=1")
        await send_as(database_url, alice, f"sync:{alice}", {"table": "sessions", "server_seq": 4})
        frame = await asyncio.wait_for(socket.recv(), 5)
        fetch(f"{url}/control?binary=0")
        check(isinstance(frame, bytes) and frame[0] == 4, "v2: a broadcast as a binary user broadcast (type 4)")
        topic_size, event_size, metadata_size, encoding = frame[1], frame[2], frame[3], frame[4]
        offset = 5
        read_topic = frame[offset : offset + topic_size].decode()
        offset += topic_size
        event = frame[offset : offset + event_size].decode()
        offset += event_size
        metadata = json.loads(frame[offset : offset + metadata_size])
        payload = json.loads(frame[offset + metadata_size :])
        check(
            read_topic == topic and event == "poke" and encoding == 1 and "id" in metadata and payload["server_seq"] == 4,
            "v2: its fields as the protocol documents them",
        )

        # A client broadcast as an array, on a channel joined with ack: answered with ok.
        acked = dict(join, config=dict(join["config"], broadcast={"ack": True, "self": True}))
        await socket.send(json.dumps(["6", "7", topic, "phx_join", acked]))
        frame = json.loads(await asyncio.wait_for(socket.recv(), 5))
        while frame[1] != "7":  # the channel joined before is closed first
            frame = json.loads(await asyncio.wait_for(socket.recv(), 5))
        check(frame[4]["status"] == "ok", "v2: joined again with ack and self")
        await socket.send(json.dumps(["6", "8", topic, "broadcast", {"type": "broadcast", "event": "poke", "payload": {"server_seq": 5}}]))
        frames = [json.loads(await asyncio.wait_for(socket.recv(), 5)) for _ in range(2)]
        replies = [frame for frame in frames if frame[3] == "phx_reply"]
        echoes = [frame for frame in frames if frame[3] == "broadcast"]
        check(replies and replies[0][:2] == ["6", "8"] and replies[0][4]["status"] == "ok", "v2: a client broadcast with ack is answered")
        check(echoes and echoes[0][4] == {"type": "broadcast", "event": "poke", "payload": {"server_seq": 5}}, "v2: and comes back with self, as sent")


async def with_failure_switches(url, database_url):
    """Each switch does what it says, seen through Supabase's client or a bare socket."""
    alice = str(uuid.uuid4())
    anon = fetch(f"{url}/token?role=anon")
    client = AsyncRealtimeClient(f"{url}/realtime/v1", token=anon, auto_reconnect=False)
    await client.connect()
    await client.set_auth(fetch(f"{url}/token?sub={alice}"))
    pokes = []
    channel = client.channel(f"sync:{alice}", {"config": {"private": True, "broadcast": {"ack": False, "self": False}}})
    channel.on_broadcast("poke", lambda payload: pokes.append(payload))
    states = []
    await channel.subscribe(lambda state, error: states.append(state))
    check(states and states[-1] == RealtimeSubscribeStates.SUBSCRIBED, "switches: joined")

    def stats():
        return json.loads(fetch(f"{url}/stats"))

    fetch(f"{url}/control?drop=1")
    dropped = stats()["dropped"]
    await send_as(database_url, alice, f"sync:{alice}", {"table": "activities", "server_seq": 1}, hold=0)
    # The server decides a drop as the commit reaches it, before it would send anything.
    check(await until(lambda: stats()["dropped"] == dropped + 1) and pokes == [], "switches: drop=1 loses the broadcast")

    fetch(f"{url}/control?drop=0&duplicate=2")
    await send_as(database_url, alice, f"sync:{alice}", {"table": "activities", "server_seq": 2}, hold=0)
    check(await until(lambda: len(pokes) == 3), "switches: duplicate=2 sends it three times")
    await asyncio.sleep(0.2)
    check(len(pokes) == 3 and all(poke["payload"]["server_seq"] == 2 for poke in pokes), "switches: and no more")

    fetch(f"{url}/control?duplicate=0&delay_ms=400")
    committed = time.monotonic()
    await send_as(database_url, alice, f"sync:{alice}", {"table": "activities", "server_seq": 3}, hold=0)
    check(await until(lambda: len(pokes) == 4), "switches: a delayed broadcast still arrives")
    # A lower bound only: a busy machine makes it later, never earlier.
    check(time.monotonic() - committed >= 0.4, "switches: delay_ms=400 holds it at least that long")
    fetch(f"{url}/control?delay_ms=0")
    await client.close()

    async with connect(f"{url.replace('http', 'ws')}/realtime/v1/websocket?apikey={anon}&vsn=2.0.0") as socket:
        fetch(f"{url}/control?withhold_heartbeats=1")
        await socket.send(json.dumps([None, "1", "phoenix", "heartbeat", {}]))
        check(await until(lambda: stats()["heartbeats"] >= 1), "switches: a withheld heartbeat is received")
        fetch(f"{url}/control?withhold_heartbeats=0")
        await socket.send(json.dumps([None, "2", "phoenix", "heartbeat", {}]))
        reply = json.loads(await asyncio.wait_for(socket.recv(), 5))
        check(reply[1] == "2", "switches: withhold_heartbeats leaves it unanswered, and later ones are answered again")

        fetch(f"{url}/kill")
        try:
            await asyncio.wait_for(socket.recv(), 5)
            ended = None
        except ConnectionClosed as closed:
            ended = closed
        check(ended is not None and ended.rcvd is None, "switches: kill cuts the socket without a close frame")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--database-url", required=True)
    arguments = parser.parse_args()
    try:
        await asyncio.wait_for(with_supabase_client(arguments.url, arguments.database_url), 60)
        await asyncio.wait_for(with_client_broadcasts(arguments.url, arguments.database_url), 60)
        await asyncio.wait_for(with_documented_v2_frames(arguments.url, arguments.database_url), 60)
        await asyncio.wait_for(with_failure_switches(arguments.url, arguments.database_url), 60)
    except Failure as failure:
        print(f"FAILED {failure}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
