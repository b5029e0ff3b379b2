"""A snowidd client: stubs generated from the contract by grpc_tools.protoc,
calls through grpcio. IDs are Python ints, exact at any size.

    from snowlab.v1 import id_pb2
    ids = id_client("127.0.0.1:8080")
    one = ids.NextID(id_pb2.NextIDRequest(), timeout=10).id               # int
    batch = ids.NextIDs(id_pb2.NextIDsRequest(count=3), timeout=10).ids  # increasing
"""
import grpc

from snowlab.v1 import id_pb2_grpc


def id_client(target):
    """A stub that calls the replica at target over gRPC, on one HTTP/2
    connection: make one per process and share it."""
    return id_pb2_grpc.IDServiceStub(grpc.insecure_channel(target))
