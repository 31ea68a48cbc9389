package registryextension // import "github.com/otelgov/otelcol-governance/extension/registryextension"

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// fileSums maps each watched file to the SHA-256 of its content.
type fileSums map[string][sha256.Size]byte

// fingerprint hashes the content of every watched path: a file by its
// content, a directory by every file below it.
//
// Content, not modification times or inotify events: a Kubernetes ConfigMap
// volume is updated by swapping the `..data` symlink atomically, so the
// files a registry path names are symlinks whose targets change under them.
// os.ReadFile follows those symlinks; a symlink to a directory is hashed by
// its target, so the swap itself is seen even before the content is read.
// Symlinked directories are not descended into: the real directory behind
// `..data` is already walked once.
func fingerprint(paths []string) (fileSums, [sha256.Size]byte, error) {
	sums := fileSums{}
	for _, p := range paths {
		if err := sumPath(p, sums); err != nil {
			return nil, [sha256.Size]byte{}, err
		}
	}
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		s := sums[n]
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(s[:])
	}
	var total [sha256.Size]byte
	h.Sum(total[:0])
	return sums, total, nil
}

func sumPath(root string, sums fileSums) error {
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	if !st.IsDir() {
		return sumFile(root, sums)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Stat(path)
			if err != nil {
				return err
			}
			if target.IsDir() {
				link, err := os.Readlink(path)
				if err != nil {
					return err
				}
				sums[path] = sha256.Sum256([]byte("symlink " + link))
				return nil
			}
			return sumFile(path, sums)
		case d.Type().IsRegular():
			return sumFile(path, sums)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	return nil
}

func sumFile(path string, sums fileSums) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	sums[path] = sha256.Sum256(data)
	return nil
}

// changed lists the files added, removed or modified between two sums,
// sorted.
func changed(before, after fileSums) []string {
	var out []string
	for n, s := range after {
		if b, ok := before[n]; !ok || b != s {
			out = append(out, n)
		}
	}
	for n := range before {
		if _, ok := after[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
