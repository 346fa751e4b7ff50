package scheduling

// lazyPlan is a plan of the same input that a default Solve compares its own with, made the
// first time it is asked for and at most once per Solve (Karpenter mode's answer, the plan
// with preferences ignored).
type lazyPlan struct {
	plan func() (*Result, error)
	res  *Result
	err  error
	done bool
}

// get makes the plan the first time it is asked for.
func (l *lazyPlan) get() (*Result, error) {
	if !l.done {
		l.res, l.err = l.plan()
		l.done = true
	}
	return l.res, l.err
}
