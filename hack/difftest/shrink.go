package main

import "slices"

// shrink removes documents, replicas and instance types from a diverging input while it still
// diverges in the same class, and returns the smallest input found with its result.
func (cfg *config) shrink(in *input, r *caseResult) (*input, *caseResult) {
	cur, curRes := in, r
	same := func(c *input) (*caseResult, bool) {
		res := cfg.evaluate(c)
		return res, res.Status == r.Status && res.Class == r.Class
	}
	try := func(c *input) bool {
		if res, ok := same(c); ok {
			cur, curRes = c, res
			return true
		}
		return false
	}
	for range 2 {
		progress := false
		for i := len(cur.Docs) - 1; i >= 0; i-- {
			if i >= len(cur.Docs) {
				continue
			}
			c := cur.clone()
			c.Docs = slices.Delete(c.Docs, i, i+1)
			if try(c) {
				progress = true
			}
		}
		for i := range cur.Docs {
			for {
				spec, ok := cur.Docs[i]["spec"].(map[string]any)
				if !ok {
					break
				}
				n, ok := spec["replicas"].(int)
				if !ok || n <= 1 {
					break
				}
				c := cur.clone()
				c.Docs[i]["spec"].(map[string]any)["replicas"] = n - 1
				if !try(c) {
					break
				}
				progress = true
			}
		}
		types := cur.Catalog["instanceTypes"].([]any)
		for i := len(types) - 1; i >= 0; i-- {
			types = cur.Catalog["instanceTypes"].([]any)
			if i >= len(types) || len(types) == 1 {
				continue
			}
			c := cur.clone()
			c.Catalog["instanceTypes"] = slices.Delete(slices.Clone(types), i, i+1)
			if try(c) {
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	return cur, curRes
}

func (in *input) clone() *input {
	c := *in
	c.Docs = make([]map[string]any, len(in.Docs))
	for i, d := range in.Docs {
		c.Docs[i] = deepCopy(d)
	}
	c.Catalog = deepCopy(in.Catalog)
	return &c
}
