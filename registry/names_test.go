package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNameTables: every GroupKind has a name (the other enums' tables are
// tested in internal/registry/def).
func TestNameTables(t *testing.T) {
	assert.Len(t, groupKindNames, int(GroupEntity)+1)
	for i, n := range groupKindNames {
		assert.NotEmpty(t, n, "GroupKind %d has no name", i)
	}
	assert.Equal(t, "entity", GroupEntity.String())
	assert.Equal(t, "unknown", GroupKind(200).String())
}
