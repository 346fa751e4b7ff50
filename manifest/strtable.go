package manifest

// stringTable shares the strings a decoder reads: a string equal to one it holds is that one,
// so that what a kubectl dump repeats across thousands of objects (label keys and values,
// namespaces, owner kinds, container names, resource names) is held once. It is a fixed
// direct-mapped cache, not a set of every string read: a string read again shortly after is
// shared, a rare one only takes a slot until another string of its hash comes, and the table
// costs neither growth nor more than its slots (64 KiB).
type stringTable struct {
	slots [1 << 12]string
}

// get is the string of b, the table's when it holds one equal to it.
func (t *stringTable) get(b []byte) string {
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &t.slots[h&(uint32(len(t.slots))-1)]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}
