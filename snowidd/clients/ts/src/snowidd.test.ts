// The TypeScript client against a running snowidd, over every protocol
// connect-node speaks, in both formats. The replica is named by
// SNOWIDD_URL (http://127.0.0.1:8080 when unset, where the README starts
// one); SNOWIDD_NODE is the node id it holds (when unset, the node of the
// first ID it hands out, which every later one must carry) and
// SNOWIDD_EPOCH its -epoch (snowidd's default, 2024-01-01T00:00:00Z, when
// unset; the layout's bits are the default 41/10/12). TestTypeScript in
// snowidd/internal/daemon runs it both ways: as the README does, and
// against a replica started with -epoch 1970-01-01T00:00:00Z, so every ID
// is above 2^62, where a double's step is 1,024: an ID that passed
// through a JavaScript number would lose its sequence bits.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";

import { DecodeResponseSchema, IDService, NextIDsResponseSchema } from "./gen/snowlab/v1/id_pb.js";
import { idClient } from "./snowidd.js";

const baseUrl = process.env.SNOWIDD_URL || "http://127.0.0.1:8080";
const epochMs = Date.parse(process.env.SNOWIDD_EPOCH || "2024-01-01T00:00:00Z");
assert.ok(!Number.isNaN(epochMs), `SNOWIDD_EPOCH ${process.env.SNOWIDD_EPOCH} is not an RFC 3339 instant`);

// node is the replica's node id: SNOWIDD_NODE, or undefined until the
// first ID the replica hands out says it (nodeOf).
let node: number | undefined = process.env.SNOWIDD_NODE ? Number(process.env.SNOWIDD_NODE) : undefined;
assert.ok(node === undefined || Number.isInteger(node), `SNOWIDD_NODE ${process.env.SNOWIDD_NODE} is not a node id`);

// The default layout: 41 bits of milliseconds, 10 of node, 12 of sequence.
const seqBits = 12n;
const nodeBits = 10n;

// nodeOf is the node id the replica holds, read from id's bits the first
// time when SNOWIDD_NODE did not say it.
function nodeOf(id: bigint): number {
  node ??= Number((id >> seqBits) & ((1n << nodeBits) - 1n));
  return node;
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// base32 is snowlab.ID.Base32: 13 Crockford characters, most significant first.
function base32(id: bigint): string {
  let s = "";
  for (let i = 0; i < 13; i++, id >>= 5n) {
    s = crockford[Number(id & 31n)] + s;
  }
  return s;
}

const clients: [string, Client<typeof IDService>][] = [
  ["gRPC", idClient(baseUrl)], // the README's client
  ["gRPC JSON", createClient(IDService, createGrpcTransport({ baseUrl, useBinaryFormat: false }))],
  ["Connect binary", createClient(IDService, createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true }))],
  ["Connect JSON", createClient(IDService, createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false }))],
  ["gRPC-Web binary", createClient(IDService, createGrpcWebTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true }))],
  ["gRPC-Web JSON", createClient(IDService, createGrpcWebTransport({ baseUrl, httpVersion: "2", useBinaryFormat: false }))],
];

// The last ID any test was given: the tests of a file run one after
// another, and one replica on one node id hands out increasing IDs whatever
// the connection or protocol.
let last = 0n;

for (const [name, client] of clients) {
  test(name, async () => {
    const { id } = await client.nextID({});
    assert.equal(typeof id, "bigint");
    assert.ok(id > 2n ** 53n, `${id} is not above 2^53`);
    assert.ok(id > last, `${id} is not above the ID before it, ${last}`);

    const { ids } = await client.nextIDs({ count: 1000 });
    assert.equal(ids.length, 1000);
    let prev = id;
    for (const [i, x] of ids.entries()) {
      assert.equal(typeof x, "bigint");
      assert.ok(x > prev, `ids[${i}] ${x} is not above ${prev}`);
      prev = x;
    }
    last = prev;

    const want = ids[ids.length - 1];
    const parts = await client.decode({ id: want });
    assert.equal(parts.id, want);
    assert.equal(parts.node, nodeOf(id));
    assert.equal(BigInt(parts.node), (want >> seqBits) & ((1n << nodeBits) - 1n));
    assert.equal(BigInt(parts.sequence), want & ((1n << seqBits) - 1n));
    assert.ok(parts.time, "Decode left out time");
    const ms = timestampDate(parts.time).getTime();
    assert.equal(BigInt(ms - epochMs), want >> (nodeBits + seqBits));
    assert.equal(parts.base32, base32(want));

    for (const count of [0, 100001]) {
      await assert.rejects(client.nextIDs({ count }), (err: unknown) => {
        assert.ok(err instanceof ConnectError, `count ${count}: ${err}`);
        assert.equal(err.code, Code.InvalidArgument, `count ${count}: ${err.message}`);
        assert.match(err.rawMessage, new RegExp(`count ${count} is out of range`));
        return true;
      });
    }
  });
}

// post calls a method in the Connect protocol's JSON form, as any HTTP
// client would, and returns the body's text.
async function post(method: string, body: object): Promise<string> {
  const res = await fetch(`${baseUrl}/snowlab.v1.IDService/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return text;
}

test("Connect JSON on the wire", async () => {
  const text = await post("NextIDs", { count: 3 });
  const body = JSON.parse(text) as JsonObject;
  assert.deepEqual(Object.keys(body), ["ids"]);
  const wire = body.ids as string[];
  assert.equal(wire.length, 3);
  for (const s of wire) {
    assert.equal(typeof s, "string", text);
    assert.match(s, /^[1-9][0-9]*$/);
    // The digits as sent, not JSON.parse's reading of them.
    assert.ok(text.includes(`"${s}"`));
  }
  // The generated reader turns each string into the exact bigint.
  const { ids } = fromJson(NextIDsResponseSchema, body);
  assert.deepEqual(ids, wire.map(BigInt));
  assert.ok(ids[0] > last && ids[1] > ids[0] && ids[2] > ids[1], `${ids} after ${last}`);
  last = ids[2];

  const parts = JSON.parse(await post("Decode", { id: wire[2] })) as JsonObject;
  assert.deepEqual(Object.keys(parts).sort(), ["base32", "id", "node", "seq", "time"]);
  assert.equal(parts.id, wire[2]);
  assert.equal(parts.node, nodeOf(ids[0]));
  assert.equal(typeof parts.seq, "number");
  assert.equal(parts.base32, base32(ids[2]));
  assert.match(parts.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  const read = fromJson(DecodeResponseSchema, parts);
  assert.equal(read.id, ids[2]);
  assert.equal(read.sequence, parts.seq);
  assert.equal(BigInt(read.sequence), ids[2] & ((1n << seqBits) - 1n));
});
