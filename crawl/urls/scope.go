package urls

// Scope says which discovered links a crawl follows.
type Scope string

// The scopes of --scope.
const (
	ScopeHost   Scope = "host"   // the same host (and port) as the page
	ScopeDomain Scope = "domain" // the same registrable domain (public suffix list)
	ScopeAny    Scope = "any"
)
