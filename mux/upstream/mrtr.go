package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// maxInputRounds bounds the rounds of one multi-round-trip request: a
// server that keeps asking for input must not loop.
const maxInputRounds = 10

// inputRequired is a result that asks for input before the request can
// complete (2026-07-28, SEP-2322): the requests to answer, by key, and
// the server's state to send back as it came.
type inputRequired struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
	RequestState  json.RawMessage         `json:"requestState"`
}

type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// requestRounds sends method with params, and while the server answers
// that it needs input, answers each of its requests for input by the
// connection's elicitation rule (or relays them, as a request for input
// in the middle of a call is) and sends the request again: with a fresh
// JSON-RPC id, the answers as inputResponses and the server's
// requestState byte for byte (left out when the server sent none). Each
// request keeps its own rounds, so parallel requests never mix.
func (u *conn) requestRounds(ctx context.Context, method string, params map[string]any) (json.RawMessage, error) {
	for round := 0; ; round++ {
		raw, err := u.request(ctx, method, params)
		if err != nil {
			return nil, err
		}
		var ir inputRequired
		if json.Unmarshal(raw, &ir) != nil || ir.ResultType != "input_required" {
			return raw, nil
		}
		if round == maxInputRounds {
			return nil, fmt.Errorf("server %s asked for input %d times for one %s", u.server, maxInputRounds, method)
		}
		responses, err := u.answerInputs(ctx, method, ir.InputRequests)
		if err != nil {
			return nil, err
		}
		next := maps.Clone(params)
		delete(next, "requestState")
		next["inputResponses"] = responses
		if len(ir.RequestState) > 0 && string(ir.RequestState) != "null" {
			next["requestState"] = ir.RequestState
		}
		params = next
	}
}

// answerInputs answers a round's requests for input, in the order of
// their keys. Only requests for input (elicitation/create) are answered:
// mcp declares no other capability a server could ask of it.
func (u *conn) answerInputs(ctx context.Context, method string, reqs map[string]inputRequest) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	for _, key := range slices.Sorted(maps.Keys(reqs)) {
		r := reqs[key]
		if r.Method != string(mcp.MethodElicitationCreate) {
			return nil, fmt.Errorf("%s: server %s asked for %s, which mcp does not offer", method, u.server, printable(u.secret.Text(r.Method), 64))
		}
		var p mcp.ElicitationParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return nil, fmt.Errorf("%s: server %s sent an invalid request for input", method, u.server)
		}
		res, err := u.Elicit(ctx, mcp.ElicitationRequest{Params: p})
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		out[key] = data
	}
	return out, nil
}
