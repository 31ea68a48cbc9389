package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/otelgov/otelcol-governance/findingrules"
)

// Bounds of ReadData, and of a preprocessor's result.
const (
	// MaxDataFiles bounds the data files one pattern loads.
	MaxDataFiles = 1024
	// MaxDataBytes bounds one data file, the data files together, and the
	// JSON form of a preprocessor's result.
	MaxDataBytes = 64 << 20
)

// Errors of ReadData and of merging the data document, for errors.Is.
var (
	ErrData         = errors.New("advice data does not load")
	ErrDataConflict = errors.New("advice data conflict")
)

// ReadData reads Weaver's advice data (--advice-data, .weaver.toml's
// advice_data): the JSON and YAML files a glob pattern names, each nested
// in the data document under the directories of its path relative to the
// pattern's base directory and its name without extension
// (schemas/**/*.json puts schemas/user.json at data.user and
// schemas/a/b.yaml at data.a.b), as Weaver's add_data_from_file_or_dir
// (crates/weaver_checker/src/lib.rs at afa9700c):
//   - the base is the pattern's leading components without a wildcard
//     (*, ?, [); it must exist;
//   - a pattern without a wildcard names one file (loaded under its name)
//     or a directory (every file under it);
//   - files and directories whose name starts with '.' are skipped below
//     the base, and files without a .json, .yaml or .yml extension;
//   - each file is added as Weaver adds data: a top-level key that two
//     files set must hold the same value in both (ErrDataConflict).
//
// Every file that fails is named in the error, with the line and column
// of a syntax error.
func ReadData(pattern string) (map[string]any, error) {
	base, glob := splitGlob(pattern)
	st, err := os.Stat(base)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrData, err)
	}
	if glob == "" && !st.IsDir() {
		data := map[string]any{}
		if err := addDataFile(data, filepath.Dir(base), base, new(int64)); err != nil {
			return nil, err
		}
		return data, nil
	}
	if glob == "" {
		glob = "**/*"
	}
	re, err := findingrules.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrData, err)
	}
	var files []string
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != base && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		if re.MatchString(filepath.ToSlash(rel)) && dataExt(p) {
			files = append(files, p)
			if len(files) > MaxDataFiles {
				return fmt.Errorf("%s: more than %d data files", pattern, MaxDataFiles)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrData, err)
	}
	data := map[string]any{}
	var errs []error
	total := new(int64)
	for _, f := range files {
		if err := addDataFile(data, base, f, total); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return data, nil
}

// DataRoot is the file or directory that pattern reads from: what a
// reload watches.
func DataRoot(pattern string) string {
	base, _ := splitGlob(pattern)
	return base
}

// splitGlob splits pattern into its leading components without a
// wildcard and the rest (Weaver's split_glob); an empty base is ".".
func splitGlob(pattern string) (base, glob string) {
	parts := strings.Split(filepath.ToSlash(pattern), "/")
	for i, c := range parts {
		if strings.ContainsAny(c, "*?[") {
			base, glob = strings.Join(parts[:i], "/"), strings.Join(parts[i:], "/")
			break
		}
	}
	if glob == "" {
		base = pattern
	}
	if base == "" {
		base = "."
	}
	if strings.HasPrefix(pattern, "/") && !strings.HasPrefix(base, "/") {
		base = "/"
	}
	return filepath.FromSlash(base), glob
}

func dataExt(p string) bool {
	switch filepath.Ext(p) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// addDataFile parses one data file and adds it to data under its path
// relative to root (a file of another extension adds nothing).
func addDataFile(data map[string]any, root, path string, total *int64) error {
	if !dataExt(path) {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrData, err)
	}
	*total += st.Size()
	if st.Size() > MaxDataBytes || *total > MaxDataBytes {
		return fmt.Errorf("%w: %s: the data files are larger than %d bytes", ErrData, path, MaxDataBytes)
	}
	b, err := os.ReadFile(path) //nolint:gosec // the operator names the data
	if err != nil {
		return fmt.Errorf("%w: %w", ErrData, err)
	}
	v, err := parseData(path, b)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrData, path, err)
	}
	keys := strings.Split(filepath.ToSlash(rel), "/")
	keys[len(keys)-1] = strings.TrimSuffix(keys[len(keys)-1], filepath.Ext(path))
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == "." || keys[i] == "" {
			continue
		}
		v = map[string]any{keys[i]: v}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%w: %s: the data document must be an object", ErrData, path)
	}
	if err := mergeData(data, m); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// parseData parses a JSON or YAML data file into JSON values (numbers as
// json.Number); a syntax error names the file, line and column.
func parseData(path string, b []byte) (any, error) {
	if filepath.Ext(path) == ".json" {
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		if err == nil && dec.More() {
			err = errors.New("invalid JSON: more than one value")
		}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line, col := position(b, int(se.Offset)-1)
				return nil, fmt.Errorf("%w: %s:%d:%d: invalid JSON: %w", ErrData, path, line, col, err)
			}
			return nil, fmt.Errorf("%w: %s: invalid JSON: %w", ErrData, path, err)
		}
		return v, nil
	}
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: %s: invalid YAML: %w", ErrData, path, err)
	}
	v, err := jsonValue(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrData, path, err)
	}
	return v, nil
}

// jsonValue converts a decoded YAML value into JSON values: mappings with
// string keys only (as Weaver's serde_yaml into a JSON value).
func jsonValue(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("mapping key %v is not a string", k)
			}
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		for i, e := range t {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	}
	return v, nil
}

// position is the 1-based line and column of byte offset off of b.
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + strings.Count(string(b[:off]), "\n")
	col = off - strings.LastIndexByte(string(b[:off]), '\n')
	return line, col
}

// mergeData adds src's top-level keys to dst as Weaver's policy engine
// adds a data document (regorus 0.10.1, Value::merge): a key already set
// to another value is a conflict, the same value is no change. The merge
// is one level deep: two documents that set one top-level object to
// different objects conflict too.
func mergeData(dst, src map[string]any) error {
	var keys []string
	for k, v := range src {
		if old, ok := dst[k]; ok && !sameJSON(old, v) {
			keys = append(keys, k)
			continue
		}
		dst[k] = v
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		return fmt.Errorf("%w: data.%s set twice to different values", ErrDataConflict, strings.Join(keys, ", data."))
	}
	return nil
}

// sameJSON compares two JSON values by their encoding (numbers may be
// json.Number on one side and float64 on the other).
func sameJSON(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var va, vb any
	if json.Unmarshal(ja, &va) != nil || json.Unmarshal(jb, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
