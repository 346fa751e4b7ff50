package disruption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
)

// command is a command of reason r on node name that moves pods (or none).
func command(r disruption.ReasonCode, name string, pods int) disruption.Command {
	methods := map[disruption.ReasonCode]disruption.Method{
		disruption.ReasonInterrupted: disruption.MethodInterruption, disruption.ReasonUnhealthy: disruption.MethodRepair,
		disruption.ReasonExpired: disruption.MethodExpiration, disruption.ReasonEmpty: disruption.MethodEmptiness,
		disruption.ReasonDrifted: disruption.MethodDrift, disruption.ReasonUnderutilized: disruption.MethodSingleNode,
	}
	cmd := disruption.Command{Method: methods[r], Reason: r, Candidates: []string{name}}
	for i := range pods {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s-pod-%d", name, i)}}
		cmd.Moves = append(cmd.Moves, disruption.PodMove{Move: cluster.Move{Pod: pod, From: name, To: "elsewhere", Claim: -1}, Provisioned: -1})
	}
	return cmd
}

func TestBatch(t *testing.T) {
	const (
		interrupted  = disruption.ReasonInterrupted
		unhealthy    = disruption.ReasonUnhealthy
		expired      = disruption.ReasonExpired
		empty        = disruption.ReasonEmpty
		drifted      = disruption.ReasonDrifted
		underutilize = disruption.ReasonUnderutilized
	)
	for _, tc := range []struct {
		name      string
		commands  []disruption.Command
		batch     []string // the candidates of the batch's commands
		planAgain bool
	}{
		{name: "no commands", batch: []string{}},
		{name: "one command that moves pods", commands: []disruption.Command{command(underutilize, "a", 2)}, batch: []string{"a"}},
		{name: "commands that move nothing all go", commands: []disruption.Command{command(empty, "a", 0), command(empty, "b", 0), command(underutilize, "c", 0)},
			batch: []string{"a", "b", "c"}},
		{name: "up to the first that moves pods", commands: []disruption.Command{command(empty, "a", 0), command(underutilize, "b", 1), command(underutilize, "c", 1)},
			batch: []string{"a", "b"}, planAgain: true},
		{name: "after moves, not even an empty node", commands: []disruption.Command{command(drifted, "a", 1), command(empty, "b", 0)},
			batch: []string{"a"}, planAgain: true},
		{name: "the forceful commands share one simulation", commands: []disruption.Command{command(interrupted, "a", 1), command(unhealthy, "b", 2), command(expired, "c", 1)},
			batch: []string{"a", "b", "c"}},
		{name: "forceful ones, then the next Plan", commands: []disruption.Command{command(interrupted, "a", 1), command(expired, "b", 0), command(underutilize, "c", 1)},
			batch: []string{"a", "b"}, planAgain: true},
		{name: "forceful without moves do not stop the next", commands: []disruption.Command{command(expired, "a", 0), command(underutilize, "b", 1), command(underutilize, "c", 0)},
			batch: []string{"a", "b"}, planAgain: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &disruption.Result{Commands: tc.commands}
			cmds, again := res.Batch()
			got := []string{}
			for _, c := range cmds {
				got = append(got, c.Candidates...)
			}
			assert.Equal(t, tc.batch, got)
			assert.Equal(t, tc.planAgain, again)
			assert.Len(t, res.Commands, len(tc.commands), "Batch changed the Result")
		})
	}
}

// A host carries out the batch and plans again for the rest: the spot interruption and the
// expiration share the provisioner's simulation; the consolidation's simulation planned their
// pods again, so it waits for a Plan of the cluster after them.
func ExampleResult_Batch() {
	res := &disruption.Result{Commands: []disruption.Command{
		command(disruption.ReasonInterrupted, "spot-1", 2),
		command(disruption.ReasonExpired, "old-1", 1),
		command(disruption.ReasonUnderutilized, "big-1", 3),
	}}
	cmds, planAgain := res.Batch()
	for _, cmd := range cmds {
		fmt.Println("carry out:", cmd.Method, cmd.Candidates) // disruption.Apply, with its launched replacements
	}
	fmt.Println("plan again:", planAgain)
	// Output:
	// carry out: interruption [spot-1]
	// carry out: expiration [old-1]
	// plan again: true
}
