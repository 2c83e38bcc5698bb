package prompts

// Turn is one message of a conversation as the conversation judges read
// it: its 1-based number, its role and its text (a tool call written as
// name(arguments), a tool's result as its text).
type Turn struct {
	N    int    `json:"n"`
	Role string `json:"role"`
	Text string `json:"text"`
}

// Conversation feeds the conversation judges: the conversation's turns
// and, for those that give a verdict per assistant turn, the numbers of
// the turns to judge and how many turns before each one it is judged
// against (Window; 0 for all).
type Conversation struct {
	Turns  []Turn `json:"turns"`
	Judge  []int  `json:"judge"`
	Window int    `json:"window"`
}
