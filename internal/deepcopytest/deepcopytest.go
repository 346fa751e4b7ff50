// Package deepcopytest checks hand-written deep copies by reflection: that a fixture sets every
// field of a package's types, and that a copy shares no pointer, slice or map with its
// original. For tests only.
package deepcopytest

import (
	"reflect"
	"testing"
	"time"
)

// AssertAllSet fails for every exported field reachable from v, of a struct type of the
// package pkgPath, that holds its zero value.
func AssertAllSet(t *testing.T, v reflect.Value, pkgPath, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			AssertAllSet(t, v.Elem(), pkgPath, path)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			AssertAllSet(t, v.Index(i), pkgPath, path+"[]")
		}
	case reflect.Struct:
		if v.Type().PkgPath() != pkgPath {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if v.Field(i).IsZero() {
				t.Errorf("%s.%s is not set in the fixture", path, f.Name)
			}
			AssertAllSet(t, v.Field(i), pkgPath, path+"."+f.Name)
		}
	}
}

// AssertNoSharedMemory fails where a and b (a deep copy of a) share a pointer, slice or map.
func AssertNoSharedMemory(t *testing.T, a, b reflect.Value, path string) {
	t.Helper()
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: pointer shared", path)
		}
		AssertNoSharedMemory(t, a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Cap() == 0 {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: slice shared", path)
		}
		for i := 0; i < a.Len(); i++ {
			AssertNoSharedMemory(t, a.Index(i), b.Index(i), path+"[]")
		}
	case reflect.Map:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Errorf("%s: map shared", path)
		}
		for _, k := range a.MapKeys() {
			AssertNoSharedMemory(t, a.MapIndex(k), b.MapIndex(k), path+"[]")
		}
	case reflect.Interface:
		if !a.IsNil() {
			AssertNoSharedMemory(t, a.Elem(), b.Elem(), path)
		}
	case reflect.Struct:
		if a.Type() == reflect.TypeOf(time.Time{}) {
			return // its *Location is shared by design
		}
		for i := 0; i < a.NumField(); i++ {
			AssertNoSharedMemory(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
		}
	}
}
