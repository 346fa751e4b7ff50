package interruption_test

import (
	"errors"
	"fmt"

	"github.com/nodeplan/nodeplan/aws/interruption"
)

// A spot interruption warning, as EventBridge delivers it through SQS: the instance it names
// and what Karpenter does about it.
func ExampleParse() {
	ev, err := interruption.Parse([]byte(`{"version": "0", "id": "0d9a1c52", "source": "aws.ec2",
		"detail-type": "EC2 Spot Instance Interruption Warning", "account": "123456789012",
		"time": "2026-11-30T14:02:00Z", "region": "eu-west-1",
		"detail": {"instance-id": "i-0123456789abcdef0", "instance-action": "terminate"}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Kind, ev.InstanceIDs, ev.InstanceAction, ev.Time.Format("15:04"), ev.Action())
	// Output:
	// spot_interrupted [i-0123456789abcdef0] terminate 14:02 CordonAndDrain
}

// An AWS Health scheduled change names several entities: the instances among them, each
// once; other entities (volumes) are skipped.
func ExampleParse_health() {
	ev, err := interruption.Parse([]byte(`{"version": "0", "source": "aws.health", "detail-type": "AWS Health Event",
		"detail": {"service": "EC2", "eventTypeCode": "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",
		"eventTypeCategory": "scheduledChange", "affectedEntities": [{"entityValue": "i-0aaaaaaaaaaaaaaa1"},
		{"entityValue": "vol-0ccccccccccccccc3"}, {"entityValue": "i-0aaaaaaaaaaaaaaa1"}]}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Kind, ev.InstanceIDs, ev.HealthEventTypeCode, ev.Action())
	// Output:
	// scheduled_change [i-0aaaaaaaaaaaaaaa1] AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED CordonAndDrain
}

// A message of a kind Karpenter does not act on is a NoOp, not an error; a known kind
// without its instance is a *MalformedError naming the field, which a reader counts,
// reports and deletes.
func ExampleParse_malformed() {
	ev, err := interruption.Parse([]byte(`{"version": "0", "source": "aws.s3", "detail-type": "Object Created", "detail": {}}`))
	fmt.Println(ev.Kind, ev.Action(), err)

	_, err = interruption.Parse([]byte(`{"version": "0", "source": "aws.ec2",
		"detail-type": "EC2 Spot Instance Interruption Warning", "detail": {"instance-id": "vol-1"}}`))
	var malformed *interruption.MalformedError
	if errors.As(err, &malformed) {
		fmt.Println("malformed:", malformed.Field)
	}
	// Output:
	// no_op NoAction <nil>
	// malformed: detail.instance-id
}
