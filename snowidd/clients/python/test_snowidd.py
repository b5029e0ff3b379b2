"""The Python client against a running snowidd.

The replica is named by SNOWIDD_TARGET (host:port); SNOWIDD_NODE is the node
id it holds and SNOWIDD_EPOCH its -epoch (the layout's bits are the default
41/10/12); SNOWIDD_TIMEOUT, when set, is each call's deadline in seconds
(10 when unset). TestPython in snowidd/internal/daemon generates the stubs into a
temporary folder on PYTHONPATH and starts a replica with
-epoch 1970-01-01T00:00:00Z, so every ID is above 2^62.
"""
import datetime
import os
import unittest

import grpc

from snowlab.v1 import id_pb2
from snowidd import id_client

SEQ_BITS, NODE_BITS = 12, 10
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def env(name):
    v = os.environ.get(name)
    if not v:
        raise SystemExit(
            "%s is not set: TestPython (snowidd/internal/daemon) sets SNOWIDD_TARGET, SNOWIDD_NODE and SNOWIDD_EPOCH for the replica it starts"
            % name
        )
    return v


TARGET = env("SNOWIDD_TARGET")
NODE = int(env("SNOWIDD_NODE"))
EPOCH = datetime.datetime.fromisoformat(env("SNOWIDD_EPOCH").replace("Z", "+00:00"))
# Each call's deadline, in seconds: TestPython passes the time left until
# its own end, so that a loaded machine fails no call that would answer.
TIMEOUT = float(os.environ.get("SNOWIDD_TIMEOUT", "10"))


def base32(i):
    """snowlab.ID.Base32: 13 Crockford characters, most significant first."""
    return "".join(CROCKFORD[(i >> (5 * k)) & 31] for k in range(12, -1, -1))


class IDServiceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ids = id_client(TARGET)

    def test_batches_increase(self):
        first = self.ids.NextID(id_pb2.NextIDRequest(), timeout=TIMEOUT).id
        self.assertIsInstance(first, int)
        self.assertGreater(first, 2**53)
        batch = self.ids.NextIDs(id_pb2.NextIDsRequest(count=1000), timeout=TIMEOUT).ids
        self.assertEqual(len(batch), 1000)
        prev = first
        for i, x in enumerate(batch):
            self.assertGreater(x, prev, "ids[%d]" % i)
            prev = x
        later = self.ids.NextIDs(id_pb2.NextIDsRequest(count=2), timeout=TIMEOUT).ids
        self.assertGreater(later[0], batch[-1])

    def test_decode_returns_every_field(self):
        want = self.ids.NextIDs(id_pb2.NextIDsRequest(count=5), timeout=TIMEOUT).ids[-1]
        parts = self.ids.Decode(id_pb2.DecodeRequest(id=want), timeout=TIMEOUT)
        self.assertEqual(parts.id, want)
        self.assertEqual(parts.node, NODE)
        self.assertEqual(parts.node, (want >> SEQ_BITS) & ((1 << NODE_BITS) - 1))
        self.assertEqual(parts.sequence, want & ((1 << SEQ_BITS) - 1))
        self.assertTrue(parts.HasField("time"))
        since = parts.time.ToDatetime().replace(tzinfo=datetime.timezone.utc) - EPOCH
        self.assertEqual(since // datetime.timedelta(milliseconds=1), want >> (NODE_BITS + SEQ_BITS))
        self.assertEqual(parts.base32, base32(want))

    def test_bad_count_is_invalid_argument(self):
        for count in (0, 100001):
            with self.subTest(count=count):
                with self.assertRaises(grpc.RpcError) as caught:
                    self.ids.NextIDs(id_pb2.NextIDsRequest(count=count), timeout=TIMEOUT)
                self.assertEqual(caught.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
                self.assertIn("count %d is out of range" % count, caught.exception.details())


if __name__ == "__main__":
    unittest.main()
