package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws/interruption"
)

const spotMessage = `{"version":"0","id":"m1","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","time":"2026-01-01T00:58:00Z","detail":{"instance-id":"i-0a1","instance-action":"terminate"}}`
const stoppingMessage = `{"version":"0","id":"m2","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2","time":"2026-01-01T00:59:00Z","detail":{"instance-id":"i-0b2","state":"stopping"}}`

func TestInterruptionMessageForms(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"documented kind", `apiVersion: nodeplan/v1alpha1
kind: InterruptionMessages
messages:
- ` + spotMessage + `
- ` + stoppingMessage + "\n"},
		{"plain JSON list of EventBridge messages", "[" + spotMessage + "," + stoppingMessage + "]"},
		{"one message per YAML document", spotMessage + "\n---\n" + stoppingMessage + "\n"},
		{"aws sqs receive-message output", `{"Messages":[{"MessageId":"a","ReceiptHandle":"r","Body":` + quote(spotMessage) + `},{"MessageId":"b","Body":` + quote(stoppingMessage) + `}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Parse([]byte(tc.data), "events.yaml")
			require.NoError(t, err)
			require.Len(t, set.Interruptions, 2)
			assert.Equal(t, interruption.SpotInterrupted, set.Interruptions[0].Kind)
			assert.Equal(t, []string{"i-0a1"}, set.Interruptions[0].InstanceIDs)
			assert.Equal(t, interruption.InstanceStopped, set.Interruptions[1].Kind)
			assert.Empty(t, set.Skipped)
		})
	}
}

// An AWS Health event naming an instance and entities that are not instances loads with the
// instance (Karpenter acts on the instances it knows); it does not fail the whole input.
func TestInterruptionHealthEventWithOtherEntities(t *testing.T) {
	health := `{"version":"0","id":"h1","detail-type":"AWS Health Event","source":"aws.health","detail":{"service":"EC2","eventTypeCategory":"scheduledChange","affectedEntities":[{"entityValue":"i-0aaa"},{"entityValue":"vol-0bbb"}]}}`
	set, err := Parse([]byte(health), "events.json")
	require.NoError(t, err)
	require.Len(t, set.Interruptions, 1)
	assert.Equal(t, interruption.ScheduledChange, set.Interruptions[0].Kind)
	assert.Equal(t, []string{"i-0aaa"}, set.Interruptions[0].InstanceIDs)
}

func TestInterruptionMessagesMerge(t *testing.T) {
	a, err := Parse([]byte(spotMessage), "a.json")
	require.NoError(t, err)
	b, err := Parse([]byte(stoppingMessage), "b.json")
	require.NoError(t, err)
	require.NoError(t, a.Merge(b))
	assert.Len(t, a.Interruptions, 2)
}

func TestInterruptionMessageErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"malformed message names the field", `apiVersion: nodeplan/v1alpha1
kind: InterruptionMessages
metadata: {name: q}
messages:
- {version: "0", source: aws.ec2, detail-type: EC2 Spot Instance Interruption Warning, detail: {instance-id: "bad id"}}
`, `InterruptionMessages "q": messages[0].detail.instance-id`},
		{"wrong apiVersion", "apiVersion: v1\nkind: InterruptionMessages\nmessages: []\n", "apiVersion"},
		{"body not a string", `{"Messages":[{"Body":{"a":1}}]}`, "Messages[0].Body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data), "events.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "events.yaml")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func quote(s string) string {
	out := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return string(append(out, '"'))
}

// TestInterruptionKindIsStrict: the InterruptionMessages kind is decoded as strictly as every
// other kind nodeplan reads: a misspelled field (which read no message at all, exit 0), a
// duplicated key or a metadata that is not an object is an *Error naming file, document,
// object and field.
func TestInterruptionKindIsStrict(t *testing.T) {
	head := "# events\napiVersion: nodeplan/v1alpha1\nkind: InterruptionMessages\nmetadata: {name: q}\n"
	for _, c := range []struct{ name, data, field string }{
		{"misspelled messages", head + "mesages:\n- " + spotMessage + "\n", "mesages"},
		{"another field", head + "messages: []\nspec: {}\n", "spec"},
		{"metadata a list", "# events\napiVersion: nodeplan/v1alpha1\nkind: InterruptionMessages\nmetadata: [q]\nmessages: []\n", "metadata"},
		{"duplicated key", head + "messages: []\nmessages:\n- " + spotMessage + "\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\n"+c.data), "events.yaml")
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, Source{File: "events.yaml", Document: 2, Line: 6}, e.Source)
			assert.Equal(t, c.field, e.Field)
			assert.Contains(t, e.Object, InterruptionKind)
		})
	}
	set, err := Parse([]byte(head+"messages:\n- "+spotMessage+"\n"), "events.yaml")
	require.NoError(t, err)
	assert.Len(t, set.Interruptions, 1)
}
