package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nodeplan/nodeplan/aws/interruption"
)

// InterruptionKind is nodeplan's own kind for interruption messages given with a snapshot:
//
//	apiVersion: nodeplan/v1alpha1
//	kind: InterruptionMessages
//	messages:            # EventBridge messages, as Karpenter's SQS queue delivers their bodies
//	- {version: "0", source: aws.ec2, detail-type: EC2 Spot Instance Interruption Warning, ...}
//
// An EventBridge message may also stand alone (a document, or an item of a JSON array,
// with source and detail-type and no kind), and `aws sqs receive-message` output
// ({"Messages": [{"Body": "..."}]}) is read message by message.
const (
	InterruptionKind       = "InterruptionMessages"
	InterruptionAPIVersion = "nodeplan/v1alpha1"
)

// eventBridgeMessage: an object with an EventBridge envelope's source and detail-type and no kind.
func eventBridgeMessage(m map[string]any) bool {
	_, kind := m["kind"]
	_, src := m["source"]
	_, dt := m["detail-type"]
	return !kind && src && dt
}

// sqsReceiveOutput: `aws sqs receive-message` output, {"Messages": [{"Body": ...}]}.
func sqsReceiveOutput(m map[string]any) bool {
	_, kind := m["kind"]
	msgs, ok := m["Messages"].([]any)
	return !kind && ok && len(msgs) > 0
}

// interruptionMessages reads whichever of the three forms m is; raw is m's JSON when known.
func (p *parser) interruptionMessages(src Source, m map[string]any, raw []byte) {
	switch {
	case eventBridgeMessage(m) && raw != nil:
		p.interruptionBody(src, ObjectRef{}, "", raw) // a document of its own: no need to encode m again
	case eventBridgeMessage(m):
		p.interruptionMessage(src, ObjectRef{}, "", m)
	case sqsReceiveOutput(m):
		for i, it := range m["Messages"].([]any) {
			field := "Messages[" + strconv.Itoa(i) + "].Body"
			msg, _ := it.(map[string]any)
			body, ok := msg["Body"].(string)
			if !ok {
				p.fail(src, ObjectRef{}, field, errors.New("want the message body as a string"))
				continue
			}
			p.interruptionBody(src, ObjectRef{}, field, []byte(body))
		}
	default:
		ref := ObjectRef{Kind: InterruptionKind}
		if md, ok := m["metadata"].(map[string]any); ok {
			ref.Name, _ = md["name"].(string)
		}
		if av, _ := m["apiVersion"].(string); av != InterruptionAPIVersion {
			p.fail(src, ref, "apiVersion", fmt.Errorf("%q: %s is read in %s", av, InterruptionKind, InterruptionAPIVersion))
			return
		}
		if !p.strictInterruptionKind(src, ref, m) {
			return
		}
		msgs, ok := m["messages"].([]any)
		if !ok && m["messages"] != nil {
			p.fail(src, ref, "messages", errors.New("want a list of EventBridge messages"))
			return
		}
		for i, it := range msgs {
			field := "messages[" + strconv.Itoa(i) + "]"
			msg, ok := it.(map[string]any)
			if !ok {
				p.fail(src, ref, field, errors.New("want an EventBridge message object"))
				continue
			}
			p.interruptionMessage(src, ref, field, msg)
		}
	}
}

// strictInterruptionKind refuses what strict decoding refuses in the other kinds nodeplan
// reads: a duplicated key, a field the kind does not have (mesages: would read no message),
// metadata that is not an object.
func (p *parser) strictInterruptionKind(src Source, ref ObjectRef, m map[string]any) bool {
	ok := true
	if err := p.strictErr; err != nil && !p.checkedDups {
		p.checkedDups = true
		p.fail(src, ref, "", errors.New(lineOffsetMessage(err.Error(), p.doc.line)))
		ok = false
	}
	for _, f := range sortedKeys(m) {
		switch f {
		case "apiVersion", "kind", "messages":
		case "metadata":
			if _, isObject := m[f].(map[string]any); !isObject && m[f] != nil {
				p.fail(src, ref, f, fmt.Errorf("expected an object, got %s", jsonTypeName(m[f])))
				ok = false
			}
		default:
			p.fail(src, ref, f, errors.New("unknown field"))
			ok = false
		}
	}
	return ok
}

func (p *parser) interruptionMessage(src Source, ref ObjectRef, field string, m map[string]any) {
	body, err := json.Marshal(m)
	if err != nil {
		p.fail(src, ref, field, err)
		return
	}
	p.interruptionBody(src, ref, field, body)
}

// interruptionBody parses one message body with package interruption; a malformed one is an
// error naming where it is (Karpenter would log and delete it; an input file should be right).
func (p *parser) interruptionBody(src Source, ref ObjectRef, field string, body []byte) {
	ev, err := interruption.Parse(body)
	if err != nil {
		var me *interruption.MalformedError
		if errors.As(err, &me) && me.Field != "" {
			if field != "" {
				field += "."
			}
			field += me.Field
			err = errors.New(me.Reason)
		}
		p.fail(src, ref, field, err)
		return
	}
	if p.admit(InterruptionKind, src, ref) {
		p.set.Interruptions = append(p.set.Interruptions, ev)
	}
}
