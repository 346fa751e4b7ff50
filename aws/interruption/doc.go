// Package interruption turns the EventBridge messages AWS sends about EC2 instances (spot
// interruption warnings, rebalance recommendations, AWS Health scheduled changes, instance
// state changes, capacity-reservation interruption warnings) into typed [Event] values, and
// says which [Action] Karpenter takes for each kind.
//
// It only parses: it never reads a queue, a clock or the network, and imports no AWS SDK, so
// the CLI and the disruption package can use it. Package aws reads the messages from SQS.
package interruption
