"""A snowidd client in Python: grpcio with hand-built protobuf bytes.

Used by TestPythonGrpcio. It needs only Debian's python3-grpcio: the three
messages it sends and reads are small enough to encode by hand, so no stubs
are generated. Prints one JSON object on stdout.
"""
import json
import struct
import sys

import grpc


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(buf, i):
    shift = n = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i


def next_ids_request(count):
    # NextIDsRequest{uint32 count = 1}: tag 0x08 (field 1, varint).
    return b"\x08" + varint(count)


def parse_next_ids_response(buf):
    # NextIDsResponse{repeated fixed64 ids = 1}: packed, tag 0x0a (field 1, length-delimited).
    ids, i = [], 0
    while i < len(buf):
        tag, i = read_varint(buf, i)
        if tag == 0x0A:
            n, i = read_varint(buf, i)
            ids += struct.unpack("<%dQ" % (n // 8), buf[i : i + n])
            i += n
        elif tag == 0x09:  # one unpacked fixed64
            ids.append(struct.unpack("<Q", buf[i : i + 8])[0])
            i += 8
        else:
            raise ValueError("unexpected tag %#x" % tag)
    return ids


def health_request(service):
    # HealthCheckRequest{string service = 1}
    data = service.encode()
    return (b"\x0a" + varint(len(data)) + data) if data else b""


def parse_health_response(buf):
    # HealthCheckResponse{ServingStatus status = 1}; absent is UNKNOWN (0).
    if not buf:
        return 0
    tag, i = read_varint(buf, 0)
    assert tag == 0x08, tag
    return read_varint(buf, i)[0]


def main():
    ident = lambda b: b
    with grpc.insecure_channel(sys.argv[1]) as ch:
        next_ids = ch.unary_unary("/snowlab.v1.IDService/NextIDs", request_serializer=ident, response_deserializer=ident)
        check = ch.unary_unary("/grpc.health.v1.Health/Check", request_serializer=ident, response_deserializer=ident)
        ids = parse_next_ids_response(next_ids(next_ids_request(5), timeout=10))
        health = [parse_health_response(check(health_request(s), timeout=10)) for s in ("", "snowlab.v1.IDService")]
        try:
            next_ids(next_ids_request(100001), timeout=10)
            bad = ("OK", "")
        except grpc.RpcError as e:
            bad = (e.code().name, e.details())
    json.dump({"ids": [str(i) for i in ids], "health": health, "bad_count_code": bad[0], "bad_count_message": bad[1]}, sys.stdout)


main()
