package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestPlainJSONMatchesYAML(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, ` {"a": 1} `, "{\"a\":\r\n [1, -2, 0, true, false, null, \"x y\"]}",
		`{"b": {"c": [{}, []]}, "a": "<&>"}`, `{"n": 9223372036854775807, "m": -9223372036854775808}`,
		`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"app": "a"}}}`,
		`{"a": "\n\t\"\\ \b\f\r"}`, `{"k:{\"type\":\"Ready\"}": {}}`,
	} {
		js, ok := plainJSON([]byte(in))
		require.True(t, ok, in)
		want, err := yaml.YAMLToJSONStrict([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, string(want), string(js), in)
	}
}

func TestPlainJSONLeavesTheRestToYAML(t *testing.T) {
	for _, in := range []string{
		``, `"x"`, `1`, `a: 1`, `{"a": 1, "a": 2}`, `{"<<": {"a": 1}}`, `{"a": 1.5}`, `{"a": 1e3}`,
		`{"a": 01}`, `{"a": -0}`, `{"a": 9223372036854775808}`, `{"a": "\u0041"}`, `{"a": "\/"}`, `{"a": "é"}`, "{\"a\":\t1}",
		`{"a": 1} # c`, `{"a": 1}{}`, `{"a": 1,}`, `{"a" 1}`, `[1 2]`, `{"a": tru}`, `{"a": -}`,
	} {
		_, ok := plainJSON([]byte(in))
		assert.False(t, ok, in)
	}
}
