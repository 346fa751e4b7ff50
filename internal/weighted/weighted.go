// Package weighted draws values by weight from a seeded source, for the generators of test
// and benchmark inputs (internal/genworkload, internal/gendump). It never decides anything
// in a plan.
package weighted

import "math/rand/v2"

// Choice is a value drawn with a weight.
type Choice[T any] struct {
	Value  T
	Weight int
}

// Draw returns one of choices, each with a chance proportional to its weight (which must
// sum to more than 0).
func Draw[T any](rng *rand.Rand, choices []Choice[T]) T {
	total := 0
	for _, c := range choices {
		total += c.Weight
	}
	n := rng.IntN(total)
	for _, c := range choices {
		if n < c.Weight {
			return c.Value
		}
		n -= c.Weight
	}
	return choices[len(choices)-1].Value
}
