package backend

// APIKey exposes the resolved key to tests.
func (s Spec) APIKey() string { return s.apiKey }
