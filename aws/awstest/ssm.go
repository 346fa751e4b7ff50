package awstest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// SSM is an in-memory Parameter Store serving GetParameter over a map of parameter names to
// values; a missing name is ParameterNotFound, as in SSM. It is safe for concurrent use.
type SSM struct {
	mu         sync.Mutex
	parameters map[string]string
	requests   []string
}

// NewSSM returns a Parameter Store holding the parameters (name -> value).
func NewSSM(parameters map[string]string) *SSM {
	m := &SSM{parameters: map[string]string{}}
	for k, v := range parameters {
		m.parameters[k] = v
	}
	return m
}

// Put sets a parameter.
func (m *SSM) Put(name, value string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.parameters[name] = value
}

// Requests are the names asked for, in order.
func (m *SSM) Requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// Names are the parameters held, sorted.
func (m *SSM) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.parameters))
	for k := range m.parameters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// GetParameter returns a parameter (type String; data type aws:ec2:image for AMI IDs).
func (m *SSM) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := sdkaws.ToString(in.Name)
	m.requests = append(m.requests, name)
	if name == "" {
		return nil, apiError("ValidationException", "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null")
	}
	v, ok := m.parameters[name]
	if !ok {
		return nil, apiError("ParameterNotFound", "")
	}
	dataType := "text"
	if strings.HasPrefix(v, "ami-") {
		dataType = "aws:ec2:image"
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{
		Name: sdkaws.String(name), Value: sdkaws.String(v), Type: ssmtypes.ParameterTypeString, DataType: sdkaws.String(dataType), Version: 1,
		ARN:              sdkaws.String(fmt.Sprintf("arn:aws:ssm:us-east-1::parameter%s", name)),
		LastModifiedDate: sdkaws.Time(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)),
	}}, nil
}
