package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/fake"
)

func TestSpreadGroupsKeepLongFilters(t *testing.T) {
	s := &solver{wellKnown: fake.WellKnownLabels()}
	s.topo = newTopology(&universe{}, s.wellKnown)
	mk := func(last string) *corev1.Pod {
		return fake.Pod("p-"+last).Label("app", "a").
			NodeRequirement(v1.LabelInstanceType, corev1.NodeSelectorOpIn, "t1", "t2", "t3", "t4", "t5", last).
			TopologySpread(v1.LabelTopologyZone, 1, map[string]string{"app": "a"}).Obj()
	}
	fa, err := s.formFor(mk("t6"))
	require.NoError(t, err)
	fb, err := s.formFor(mk("t7"))
	require.NoError(t, err)
	assert.NotSame(t, fa.spread[0], fb.spread[0], "node filters differing after the 5th value are different groups")
	md := int32(2)
	c := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, MinDomains: &md, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}
	var groups []*topologyGroup
	for i := 0; i < 3; i++ {
		mdi := md // a fresh pointer each time
		c.MinDomains = &mdi
		f, err := s.formFor(fake.Pod(fmt.Sprint("q", i)).Label("app", "a").TopologySpreadConstraint(c).Obj())
		require.NoError(t, err)
		groups = append(groups, f.spread[0])
	}
	assert.Same(t, groups[0], groups[2], "equal constraints share a group whatever their pointers")
}
