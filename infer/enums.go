package infer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// A demo sends few distinct values for everything: the count alone makes
// an identifier, a duration or a query an enum. The name and the shape of
// the values say more. notEnum is checked before the counts: a key named
// as an identifier, or any value shaped as a number, a duration, a
// coordinate, a timestamp, a URL, a path, a query or free text, is never
// an enum.

// identifierWords end a key that names an identifier (…id, …ID, …_id,
// …uuid).
var identifierWords = map[string]bool{"id": true, "ids": true, "uuid": true, "guid": true, "uid": true}

// notIdentifierID are words ending in "id" that name no identifier.
var notIdentifierID = map[string]bool{
	"paid": true, "valid": true, "invalid": true, "android": true, "void": true, "grid": true, "fluid": true,
	"hybrid": true, "rapid": true, "solid": true, "liquid": true, "raid": true, "said": true, "avoid": true,
	"acid": true, "humid": true, "vivid": true, "rigid": true, "lucid": true, "squid": true, "pyramid": true,
}

// valueWords end a key that names a measured or free-form value, never a
// closed set.
var valueWords = map[string]string{
	"duration": "a duration", "latency": "a duration", "elapsed": "a duration", "timeout": "a duration", "ms": "a duration",
	"time": "a timestamp", "timestamp": "a timestamp", "date": "a timestamp", "at": "a timestamp",
	"lat": "a coordinate", "lon": "a coordinate", "lng": "a coordinate", "latitude": "a coordinate", "longitude": "a coordinate",
	"coordinates": "a coordinate", "coords": "a coordinate", "location": "a coordinate",
	"url": "a URL", "uri": "a URL", "href": "a URL", "link": "a URL",
	"path": "a path", "file": "a path", "dir": "a path", "filename": "a path",
	"query": "query text", "sql": "query text", "statement": "query text",
	"message": "free text", "msg": "free text", "text": "free text", "description": "free text",
	"comment": "free text", "body": "free text", "error": "free text",
}

// quantityWords end an int key that names a quantity or an open set of
// numbers (a port, a size, an HTTP status code), never a closed set.
var quantityWords = map[string]bool{
	"port": true, "size": true, "count": true, "length": true, "bytes": true, "code": true,
	"number": true, "num": true, "total": true, "seq": true, "version": true, "offset": true,
	"index": true, "pid": true, "retries": true, "attempt": true,
}

// IdentifierKey reports whether key k names an identifier: its last word
// (camelCase and every separator split) is id, ids, uuid, guid or uid,
// or ends in "id"/"uuid" glued to another word (userid, requestuuid).
func IdentifierKey(k string) bool {
	w := lastWord(k)
	if identifierWords[w] {
		return true
	}
	if strings.HasSuffix(w, "uuid") || strings.HasSuffix(w, "guid") {
		return true
	}
	return len(w) > 3 && strings.HasSuffix(w, "id") && !notIdentifierID[w]
}

func lastWord(k string) string {
	n := normalize(k)
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}

var (
	durationRe   = regexp.MustCompile(`^[+-]?\d+(\.\d+)?\s*(ns|us|µs|ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hours?|d|days?)$`)
	coordinateRe = regexp.MustCompile(`^\(?\s*[+-]?\d{1,3}\.\d+\s*[,; ]\s*[+-]?\d{1,3}\.\d+\s*\)?$`)
	timestampRe  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$|^\d{1,2}:\d{2}(:\d{2})?$`)
	uuidRe       = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$|^[0-9a-fA-F]{16,}$`)
	queryRe      = regexp.MustCompile(`(?i)^\s*(select|insert|update|delete|with|create|drop|alter|upsert|merge)\s|^\?|^[^\s=&]+=[^&]*(&[^\s=&]+=[^&]*)+$`)
)

// valueShape is the shape of v that no enum has ("" when none): a number
// written as a string, a duration, a coordinate, a timestamp, an
// identifier (UUID, long hex), a URL, a path, query text or free text.
func valueShape(v string) string {
	s := strings.TrimSpace(v)
	switch {
	case s == "":
		return ""
	case isNumber(s):
		return "a number written as a string"
	case durationRe.MatchString(s):
		return "a duration"
	case coordinateRe.MatchString(s):
		return "a coordinate"
	case timestampRe.MatchString(s):
		return "a timestamp"
	case uuidRe.MatchString(s):
		return "an identifier"
	case strings.Contains(s, "://") || strings.HasPrefix(s, "www."):
		return "a URL"
	case queryRe.MatchString(s):
		return "query text"
	case strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.Contains(s, `\`) || strings.Count(s, "/") >= 2:
		return "a path"
	case freeText(s):
		return "free text"
	}
	return ""
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// freeText: a sentence rather than a label: three words or more, ending
// punctuation, or longer than a label is.
func freeText(s string) bool {
	if len(s) > 64 || strings.ContainsAny(s[len(s)-1:], ".!?") {
		return true
	}
	return len(strings.FieldsFunc(s, unicode.IsSpace)) >= 3
}

// notEnum says why at, proposed as typ, is never an enum ("" when it may
// be one).
func notEnum(at *Attribute, typ string) string {
	if IdentifierKey(at.Key) {
		return fmt.Sprintf("not an enum: %s names an identifier", at.Key)
	}
	if typ == "int" && quantityWords[lastWord(at.Key)] {
		return fmt.Sprintf("not an enum: %s names a number (a quantity, a port, a code)", at.Key)
	}
	if what, ok := valueWords[lastWord(at.Key)]; ok {
		return fmt.Sprintf("not an enum: %s names %s", at.Key, what)
	}
	for _, v := range at.Values {
		s, ok := v.Value.(string)
		if !ok {
			continue
		}
		if shape := valueShape(s); shape != "" {
			return fmt.Sprintf("not an enum: the value %q is %s", shown(s), shape)
		}
	}
	return ""
}
