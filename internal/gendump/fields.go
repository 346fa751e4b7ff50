package gendump

import (
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const timeLayout = time.RFC3339

// hours is a random duration of up to n hours, in whole minutes.
func hours(rng *rand.Rand, n int) time.Duration {
	return time.Duration(1+rng.IntN(n*60)) * time.Minute
}

func mtime(t time.Time) metav1.Time { return metav1.NewTime(t) }

// fieldSet is a managedFields fieldsV1 tree: "f:name" and "k:{...}" keys, "." for the
// object itself, as the API server's field manager writes it.
type fieldSet map[string]fieldSet

// set marks each dotted path (f:metadata.f:labels.f:app) as owned, with "." on every
// object on the way.
func (fs fieldSet) set(paths ...string) fieldSet {
	for _, p := range paths {
		cur := fs
		parts := strings.Split(p, "|")
		for i, part := range parts {
			next, ok := cur[part]
			if !ok {
				next = fieldSet{}
				cur[part] = next
			}
			if i < len(parts)-1 {
				next["."] = fieldSet{}
			}
			cur = next
		}
	}
	return fs
}

// json is the tree as fieldsV1 JSON, keys sorted.
func (fs fieldSet) json() []byte {
	var b strings.Builder
	fs.write(&b)
	return []byte(b.String())
}

func (fs fieldSet) write(b *strings.Builder) {
	keys := make([]string, 0, len(fs))
	for k := range fs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(k, `"`, `\"`))
		b.WriteString(`":`)
		fs[k].write(b)
	}
	b.WriteByte('}')
}

// managed is one managedFields entry.
func managed(manager, subresource string, at time.Time, fs fieldSet) metav1.ManagedFieldsEntry {
	t := mtime(at)
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
		Time: &t, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(fs.json())), Subresource: subresource}
}

// keyed is a "k:{...}" key of a list item identified by one field.
func keyed(field, value string) string { return `k:{"` + field + `":"` + value + `"}` }
