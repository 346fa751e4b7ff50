// Package mutate damages manifests deterministically for tests: byte flips, lost and
// repeated lines, cut files, repeated documents, and numbers replaced by hostile values
// (zero, negative, huge, overflowing, NaN, null). The same seed gives the same mutation,
// so a failure is reproduced by its case number; it never reads the clock or the environment.
package mutate

import (
	"bytes"
	"math/rand/v2"
	"regexp"
)

// Hostile are the values a number is replaced with.
var Hostile = []string{
	"0", "-1", "-0.5", "1e30", "-1e30", "9223372036854775807", "9223372036854775808",
	"99999999999999999999", "1Ei", "8Ei", "0.001m", ".nan", ".inf", "null", "''", "1e308",
}

const punctuation = "-:{[ \n#9\"'~&*"

var number = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?([eE][0-9]+)?(m|Mi|Gi|Ki|Ti|Ei|k|M|G)?\b`)

// Case is seed's mutation of data: one to three damages drawn from the kinds above.
func Case(data []byte, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := bytes.Clone(data)
	for range 1 + rng.IntN(3) {
		out = one(rng, out)
	}
	return out
}

func one(rng *rand.Rand, data []byte) []byte {
	if len(data) == 0 {
		return []byte(Hostile[rng.IntN(len(Hostile))])
	}
	switch rng.IntN(7) {
	case 0, 1, 2: // a number becomes hostile (the most telling damage, so the most common)
		locs := number.FindAllIndex(data, -1)
		if len(locs) == 0 {
			return data
		}
		l := locs[rng.IntN(len(locs))]
		return splice(data, l[0], l[1], []byte(Hostile[rng.IntN(len(Hostile))]))
	case 3: // a byte becomes YAML punctuation
		i := rng.IntN(len(data))
		return splice(data, i, i+1, []byte{punctuation[rng.IntN(len(punctuation))]})
	case 4: // a line is lost or repeated
		lines := bytes.SplitAfter(data, []byte("\n"))
		i := rng.IntN(len(lines))
		if rng.IntN(2) == 0 {
			return bytes.Join(append(lines[:i:i], lines[i+1:]...), nil)
		}
		return bytes.Join(append(append(lines[:i+1:i+1], lines[i]), lines[i+1:]...), nil)
	case 5: // the file is cut short
		return data[:rng.IntN(len(data))]
	default: // a document is repeated
		docs := bytes.Split(data, []byte("\n---"))
		i := rng.IntN(len(docs))
		return bytes.Join(append(docs, docs[i]), []byte("\n---"))
	}
}

func splice(data []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(with))
	return append(append(append(out, data[:from]...), with...), data[to:]...)
}
