package remote

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The protobuf wire types the messages use.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// errMalformed is wrapped by every error about a message that cannot be
// read.
var errMalformed = errors.New("malformed protobuf message")

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, a...))
}

// appendVarint appends v as a protobuf varint.
func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// readVarint reads a varint from the front of b and returns it and the
// bytes it took.
func readVarint(b []byte) (uint64, int, error) {
	v, n := binary.Uvarint(b)
	switch {
	case n == 0:
		return 0, 0, malformed("varint truncated after %d bytes", len(b))
	case n < 0:
		return 0, 0, malformed("varint longer than 64 bits")
	}
	return v, n, nil
}

// nextIDsRequest is NextIDsRequest{count}: field 1, a varint (proto3 omits
// a zero).
func nextIDsRequest(count uint32) []byte {
	if count == 0 {
		return nil
	}
	return appendVarint([]byte{1<<3 | wireVarint}, uint64(count))
}

// field is one field of a message as decodeFields hands it over: a
// fixed64's value in fixed, a length-delimited field's bytes in data.
type field struct {
	num   uint64
	wire  int
	fixed uint64
	data  []byte
}

// decodeFields calls f for each field of msg, skipping none: f decides
// what an unknown field means.
func decodeFields(msg []byte, f func(field) error) error {
	for len(msg) > 0 {
		key, n, err := readVarint(msg)
		if err != nil {
			return err
		}
		msg = msg[n:]
		fl := field{num: key >> 3, wire: int(key & 7)}
		if fl.num == 0 {
			return malformed("field number 0")
		}
		switch fl.wire {
		case wireVarint:
			v, n, err := readVarint(msg)
			if err != nil {
				return err
			}
			fl.fixed, msg = v, msg[n:]
		case wireFixed64:
			if len(msg) < 8 {
				return malformed("field %d: fixed64 truncated (%d bytes left)", fl.num, len(msg))
			}
			fl.fixed, msg = binary.LittleEndian.Uint64(msg), msg[8:]
		case wireBytes:
			l, n, err := readVarint(msg)
			if err != nil {
				return err
			}
			msg = msg[n:]
			if l > uint64(len(msg)) {
				return malformed("field %d: length %d past the end (%d bytes left)", fl.num, l, len(msg))
			}
			fl.data, msg = msg[:l], msg[l:]
		case wireFixed32:
			if len(msg) < 4 {
				return malformed("field %d: fixed32 truncated (%d bytes left)", fl.num, len(msg))
			}
			fl.fixed, msg = uint64(binary.LittleEndian.Uint32(msg)), msg[4:]
		default:
			return malformed("field %d: wire type %d", fl.num, fl.wire)
		}
		if err := f(fl); err != nil {
			return err
		}
	}
	return nil
}

// decodeNextIDResponse reads NextIDResponse{fixed64 id = 1}.
func decodeNextIDResponse(msg []byte) (uint64, error) {
	var id uint64
	err := decodeFields(msg, func(f field) error {
		if f.num != 1 {
			return nil // a field added later
		}
		if f.wire != wireFixed64 {
			return malformed("NextIDResponse.id: wire type %d, want %d (fixed64)", f.wire, wireFixed64)
		}
		id = f.fixed
		return nil
	})
	return id, err
}

// decodeNextIDsResponse reads NextIDsResponse{repeated fixed64 ids = 1},
// packed (as proto3 writes it) or one field per ID (as a parser must also
// accept).
func decodeNextIDsResponse(msg []byte, want int) ([]uint64, error) {
	ids := make([]uint64, 0, want)
	err := decodeFields(msg, func(f field) error {
		if f.num != 1 {
			return nil
		}
		switch f.wire {
		case wireFixed64:
			ids = append(ids, f.fixed)
		case wireBytes:
			if len(f.data)%8 != 0 {
				return malformed("NextIDsResponse.ids: packed length %d is not a multiple of 8", len(f.data))
			}
			for b := f.data; len(b) > 0; b = b[8:] {
				ids = append(ids, binary.LittleEndian.Uint64(b))
			}
		default:
			return malformed("NextIDsResponse.ids: wire type %d, want %d (fixed64) or %d (packed)", f.wire, wireFixed64, wireBytes)
		}
		return nil
	})
	return ids, err
}
