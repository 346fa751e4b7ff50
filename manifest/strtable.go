package manifest

import "encoding/binary"

// stringTable shares the strings a decoder reads: a string equal to one it holds is that one,
// so that what a kubectl dump repeats across thousands of objects (label keys and values,
// namespaces, owner kinds, container names, resource names) is held once. It is a fixed
// direct-mapped cache, not a set of every string read: a string read again shortly after is
// shared, a rare one only takes a slot until another string of its hash comes, and the table
// costs neither growth nor more than its slots (64 KiB).
type stringTable struct {
	slots [1 << tableBits]string
}

const tableBits = 12

// get is the string of b, the table's when it holds one equal to it. A nil table shares
// nothing.
func (t *stringTable) get(b []byte) string {
	if t == nil {
		return string(b)
	}
	slot := &t.slots[hashBytes(b)>>(64-tableBits)]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}

// hashBytes is a multiplicative hash of b read eight bytes at a time (a byte-at-a-time
// FNV-1a was a tenth of a dump's decoding); its top bits pick a slot.
func hashBytes(b []byte) uint64 {
	const k = 0x9e3779b97f4a7c15
	h := uint64(len(b))
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * k
		h ^= h >> 32
	}
	var tail uint64
	for i, c := range b {
		tail |= uint64(c) << (8 * i)
	}
	return (h ^ tail) * k
}
