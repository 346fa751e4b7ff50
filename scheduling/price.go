package scheduling

// Price is the hourly price of the new NodeClaims as launched: the sum of their Offerings'
// prices, in order (a claim without an Offering adds nothing).
func (r *Result) Price() float64 {
	total := 0.0
	for _, c := range r.NewNodeClaims {
		if c.Offering != nil {
			total += c.Offering.Price
		}
	}
	return total
}
