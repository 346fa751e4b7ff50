package awstest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// IAM is an in-memory IAM holding roles and instance profiles, with IAM's rules: a profile
// holds at most one role (LimitExceeded), names are unique (EntityAlreadyExists), and a
// missing profile or role is NoSuchEntity. It is safe for concurrent use.
type IAM struct {
	// Account is the account ID in ARNs ("111122223333" when empty).
	Account string
	// Now stamps CreateDate (time.Now when nil).
	Now func() time.Time

	mu       sync.Mutex
	roles    map[string]iamtypes.Role
	profiles map[string]*iamtypes.InstanceProfile
	calls    []string
}

// NewIAM returns an IAM with the given roles.
func NewIAM(roles ...string) *IAM {
	m := &IAM{roles: map[string]iamtypes.Role{}, profiles: map[string]*iamtypes.InstanceProfile{}}
	for _, r := range roles {
		m.AddRole(r)
	}
	return m
}

func (m *IAM) account() string {
	if m.Account == "" {
		return "111122223333"
	}
	return m.Account
}

func (m *IAM) now() time.Time {
	if m.Now == nil {
		return time.Now().UTC().Truncate(time.Second)
	}
	return m.Now().UTC().Truncate(time.Second)
}

// AddRole creates a role.
func (m *IAM) AddRole(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roles[name] = iamtypes.Role{RoleName: sdkaws.String(name), RoleId: sdkaws.String("AROA" + name), Path: sdkaws.String("/"),
		Arn: sdkaws.String(fmt.Sprintf("arn:aws:iam::%s:role/%s", m.account(), name)), CreateDate: sdkaws.Time(m.now())}
}

// Profiles are copies of the instance profiles, sorted by name.
func (m *IAM) Profiles() []iamtypes.InstanceProfile {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]iamtypes.InstanceProfile, 0, len(m.profiles))
	for _, p := range m.profiles {
		out = append(out, copyProfile(p))
	}
	sort.Slice(out, func(i, j int) bool { return *out[i].InstanceProfileName < *out[j].InstanceProfileName })
	return out
}

// Calls are the operations that changed something ("CreateInstanceProfile", ...), in order.
func (m *IAM) Calls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

func copyProfile(p *iamtypes.InstanceProfile) iamtypes.InstanceProfile {
	cp := *p
	cp.Roles = append([]iamtypes.Role(nil), p.Roles...)
	cp.Tags = append([]iamtypes.Tag(nil), p.Tags...)
	return cp
}

func noSuchProfile(name *string) error {
	return apiError("NoSuchEntity", "Instance Profile %s cannot be found.", sdkaws.ToString(name))
}

// GetInstanceProfile returns a profile.
func (m *IAM) GetInstanceProfile(_ context.Context, in *iam.GetInstanceProfileInput, _ ...func(*iam.Options)) (*iam.GetInstanceProfileOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.profiles[sdkaws.ToString(in.InstanceProfileName)]
	if !ok {
		return nil, noSuchProfile(in.InstanceProfileName)
	}
	cp := copyProfile(p)
	return &iam.GetInstanceProfileOutput{InstanceProfile: &cp}, nil
}

// CreateInstanceProfile creates an empty profile (path "/" unless given).
func (m *IAM) CreateInstanceProfile(_ context.Context, in *iam.CreateInstanceProfileInput, _ ...func(*iam.Options)) (*iam.CreateInstanceProfileOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name := sdkaws.ToString(in.InstanceProfileName)
	if name == "" || len(name) > 128 {
		return nil, apiError("ValidationError", "instanceProfileName must be 1..128 characters")
	}
	if _, ok := m.profiles[name]; ok {
		return nil, apiError("EntityAlreadyExists", "Instance Profile %s already exists.", name)
	}
	path := sdkaws.ToString(in.Path)
	if path == "" {
		path = "/"
	}
	p := &iamtypes.InstanceProfile{InstanceProfileName: sdkaws.String(name), InstanceProfileId: sdkaws.String(fmt.Sprintf("AIPA%06d", len(m.profiles)+1)),
		Path: sdkaws.String(path), Arn: sdkaws.String(fmt.Sprintf("arn:aws:iam::%s:instance-profile%s%s", m.account(), path, name)),
		CreateDate: sdkaws.Time(m.now()), Roles: []iamtypes.Role{}, Tags: append([]iamtypes.Tag(nil), in.Tags...)}
	m.profiles[name] = p
	m.calls = append(m.calls, "CreateInstanceProfile")
	cp := copyProfile(p)
	return &iam.CreateInstanceProfileOutput{InstanceProfile: &cp}, nil
}

// AddRoleToInstanceProfile adds a role to a profile that has none.
func (m *IAM) AddRoleToInstanceProfile(_ context.Context, in *iam.AddRoleToInstanceProfileInput, _ ...func(*iam.Options)) (*iam.AddRoleToInstanceProfileOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.profiles[sdkaws.ToString(in.InstanceProfileName)]
	if !ok {
		return nil, noSuchProfile(in.InstanceProfileName)
	}
	role, ok := m.roles[sdkaws.ToString(in.RoleName)]
	if !ok {
		return nil, apiError("NoSuchEntity", "The role with name %s cannot be found.", sdkaws.ToString(in.RoleName))
	}
	if len(p.Roles) > 0 {
		return nil, apiError("LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")
	}
	p.Roles = []iamtypes.Role{role}
	m.calls = append(m.calls, "AddRoleToInstanceProfile")
	return &iam.AddRoleToInstanceProfileOutput{}, nil
}

// RemoveRoleFromInstanceProfile removes a role the profile holds.
func (m *IAM) RemoveRoleFromInstanceProfile(_ context.Context, in *iam.RemoveRoleFromInstanceProfileInput, _ ...func(*iam.Options)) (*iam.RemoveRoleFromInstanceProfileOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.profiles[sdkaws.ToString(in.InstanceProfileName)]
	if !ok {
		return nil, noSuchProfile(in.InstanceProfileName)
	}
	for i, r := range p.Roles {
		if sdkaws.ToString(r.RoleName) == sdkaws.ToString(in.RoleName) {
			p.Roles = append(p.Roles[:i], p.Roles[i+1:]...)
			m.calls = append(m.calls, "RemoveRoleFromInstanceProfile")
			return &iam.RemoveRoleFromInstanceProfileOutput{}, nil
		}
	}
	return nil, apiError("NoSuchEntity", "The role with name %s is not in instance profile %s.", sdkaws.ToString(in.RoleName), sdkaws.ToString(in.InstanceProfileName))
}
