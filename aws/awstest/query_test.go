package awstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// fill sets every wire field of v (recursively, one element per list) to a value derived
// from its path, so a round trip that loses or renames a field shows up as a difference.
func fill(v reflect.Value, path string, depth int) {
	if depth > 7 {
		return
	}
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 8, 0, 0, int(len(path))*int(time.Millisecond), time.UTC)))
		return
	case v.Kind() == reflect.Pointer:
		nv := reflect.New(v.Type().Elem())
		fill(nv.Elem(), path, depth)
		v.Set(nv)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if serialized(f) {
				fill(v.Field(i), path+"."+f.Name, depth+1)
			}
		}
	case reflect.Slice:
		elem := reflect.New(v.Type().Elem()).Elem()
		fill(elem, path+"[0]", depth+1)
		v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), elem))
	case reflect.String:
		v.SetString("v" + fmt.Sprint(len(path)) + strings.ReplaceAll(path, ".", "-"))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(path)))
	case reflect.Float64:
		v.SetFloat(float64(len(path)) + 0.25)
	}
}

// canned is an HTTP client that records the request and answers with a fixed body.
type canned struct {
	form url.Values
	body []byte
}

func (c *canned) Do(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	c.form, _ = url.ParseQuery(string(b))
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/xml"}}, Body: io.NopCloser(bytes.NewReader(c.body)), Request: r}, nil
}

// flatDiff lists the JSON paths whose values differ between a and b.
func flatDiff(t *testing.T, a, b any) string {
	fa, fb := flatten(t, a), flatten(t, b)
	var lines []string
	for k, v := range fa {
		if fb[k] != v {
			lines = append(lines, fmt.Sprintf("- %s = %s", k, v))
		}
	}
	for k, v := range fb {
		if fa[k] != v {
			lines = append(lines, fmt.Sprintf("+ %s = %s", k, v))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func flatten(t *testing.T, v any) map[string]string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(string, any)
	walk = func(p string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				walk(p+"."+k, v)
			}
		case []any:
			for i, v := range x {
				walk(fmt.Sprintf("%s[%d]", p, i), v)
			}
		case nil, string:
			if x != nil && x != "" {
				out[p] = fmt.Sprint(x)
			}
		default:
			out[p] = fmt.Sprint(x)
		}
	}
	walk("", x)
	return out
}

// TestQueryCodecRoundTrip sends a fully populated input of every served operation through
// the real SDK serializer and decodes it with decodeQuery, then encodes a fully populated
// output with encodeResponse and decodes it with the real SDK deserializer: both must come
// back unchanged.
func TestQueryCodecRoundTrip(t *testing.T) {
	for action := range ec2Actions {
		t.Run(action, func(t *testing.T) {
			c := &canned{}
			cfg := Config()
			cfg.HTTPClient = c
			client := EC2Client(cfg, "http://127.0.0.1:1")
			m := reflect.ValueOf(client).MethodByName(action)
			in := reflect.New(m.Type().In(1).Elem())
			fill(in.Elem(), "in", 0)
			fake := reflect.ValueOf(&EC2{}).MethodByName(action)
			out := reflect.New(fake.Type().Out(0).Elem())
			fill(out.Elem(), "out", 0)
			c.body = encodeResponse(action, "req-1", out.Interface())

			res := m.Call([]reflect.Value{reflect.ValueOf(context.Background()), in})
			if err, _ := res[1].Interface().(error); err != nil {
				t.Fatalf("%s: %v", action, err)
			}
			got := reflect.New(in.Type().Elem())
			if err := decodeQuery(c.form, got.Interface()); err != nil {
				t.Fatal(err)
			}
			if d := flatDiff(t, in.Interface(), got.Interface()); d != "" {
				t.Errorf("request round trip differs (sent -, decoded +):\n%s", d)
			}
			if d := flatDiff(t, out.Interface(), res[0].Interface()); d != "" {
				t.Errorf("reply round trip differs (encoded -, decoded +):\n%s", d)
			}
		})
	}
}

var _ = ec2.NewFromConfig
