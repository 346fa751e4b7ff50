package disruption

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// oneByOne is a method that exists only in this test: it deletes one empty node per
// command, under the Empty budget.
type oneByOne struct{}

func (oneByOne) kind() Method                         { return "one-by-one" }
func (oneByOne) reason() ReasonCode                   { return ReasonEmpty }
func (oneByOne) eventual() bool                       { return false }
func (oneByOne) covers(n *node) bool                  { return n.empty() }
func (oneByOne) shouldDisrupt(s *state, n *node) bool { return n.empty() }
func (m oneByOne) compute(s *state, cands []*node, b budgetLeft) (*proposal, error) {
	for _, c := range cands {
		if b.left[c.poolName] > 0 {
			return &proposal{cmd: Command{Method: m.kind(), Reason: m.reason()}, cands: []*node{c}}, nil
		}
		s.keep(c, b.why[c.poolName])
	}
	return nil, nil
}

// TestAMethodIsAType: a new method is a type and nothing else. Plan tries it, again after
// each of its commands, within the budget its reason names (Empty, 2 of the NodePool's 4
// nodes), and the nodes it covers but its budget stops list that budget once.
func TestAMethodIsAType(t *testing.T) {
	in := input([]*v1.NodePool{pool("p", budget("2"))},
		testNode("a", "p", "small", ""), testNode("b", "p", "small", ""), testNode("c", "p", "small", ""), testNode("d", "p", "small", ""))
	snap, err := in.snapshot()
	require.NoError(t, err)
	res, err := planWith(snap, in.Now, in.Options, []method{oneByOne{}})
	require.NoError(t, err)
	verified(t, snap, in.Now, in.Options, res)
	require.Len(t, res.Commands, 2, "one command per try, until the Empty budget is used up")
	for i, c := range res.Commands {
		assert.Equal(t, Method("one-by-one"), c.Method)
		assert.Equal(t, []string{[]string{"a", "b"}[i]}, c.Candidates)
	}
	require.Len(t, res.Blocked, 2)
	for _, b := range res.Blocked {
		want := Blocker{Code: BlockBudget, Object: "p", Budget: string(v1.DisruptionReasonEmpty), Allowed: 2, Nodes: 4, Disrupting: 2}
		assert.Equal(t, []Blocker{want}, b.Blockers, b.Node)
	}
}
