package cobrowse

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The server's half of co-browse privacy (issue 26). The portal's recorder
// masks every field value and blocks every customer value
// (web/src/lib/cobrowse/privacy.ts); its last layer, scrubEvent, guarantees
// the rules below on every event. The server checks them on every visitor
// frame before it is stored or shown, refuses a frame that breaks one
// (error frame PRIVATE_VALUE, nothing stored) and counts it
// (guichet_cobrowse_refused_frames_total{reason}), so a regression in the
// portal shows on the operators' /metrics instead of on an agent's screen:
//   - value: an element of a full snapshot or of the nodes a mutation adds,
//     or an attribute change, sets `value` to anything but nothing, "" or the
//     mask (only "•");
//   - input: an input event's text is not "" or the mask;
//   - address: the page address (meta event href) has a query or fragment
//     (the invitation link's token).
// Frames that are not rrweb events (no numeric type) are not the replayer's
// and are stored as before.

// ErrPrivateValue refuses a visitor frame that carries a field value or a
// page address query.
var ErrPrivateValue = errors.New("cobrowse: private value")

// rrweb's event and incremental source numbers (@rrweb/types 2.x).
const (
	rrFullSnapshot = 2
	rrIncremental  = 3
	rrMeta         = 4
	rrMutation     = 0
	rrInput        = 5
)

// Refusal reasons, the counter's label values.
const (
	RefusedValue   = "value"
	RefusedInput   = "input"
	RefusedAddress = "address"
)

type rrNode struct {
	Attributes map[string]any `json:"attributes"`
	ChildNodes []rrNode       `json:"childNodes"`
}

type rrData struct {
	Source *float64 `json:"source"`
	Node   *rrNode  `json:"node"`
	Href   *string  `json:"href"`
	Text   any      `json:"text"`
	Adds   []struct {
		Node *rrNode `json:"node"`
	} `json:"adds"`
	Attributes []struct {
		Attributes map[string]any `json:"attributes"`
	} `json:"attributes"`
}

// masked tells whether an attribute or input value may leave the browser:
// nothing, "" or only the mask character.
func masked(v any) bool {
	switch s := v.(type) {
	case nil:
		return true
	case string:
		return strings.Trim(s, "•") == ""
	}
	return false
}

func (n *rrNode) private() bool {
	if n == nil {
		return false
	}
	if v, ok := n.Attributes["value"]; ok && !masked(v) {
		return true
	}
	for i := range n.ChildNodes {
		if n.ChildNodes[i].private() {
			return true
		}
	}
	return false
}

// PrivacyViolation is the reason a visitor event breaks the rules above,
// "" when it breaks none. A frame shaped as an rrweb event whose parts are
// not the shapes rrweb sends is an error (ErrBadFrame).
func PrivacyViolation(raw []byte) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return "", nil
	}
	var ev struct {
		Type any             `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		return "", ErrBadFrame
	}
	typ, ok := ev.Type.(float64)
	if !ok || (typ != rrFullSnapshot && typ != rrIncremental && typ != rrMeta) || len(ev.Data) == 0 {
		return "", nil
	}
	var d rrData
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return "", ErrBadFrame
	}
	switch typ {
	case rrMeta:
		if d.Href != nil && strings.ContainsAny(*d.Href, "?#") {
			return RefusedAddress, nil
		}
	case rrFullSnapshot:
		if d.Node.private() {
			return RefusedValue, nil
		}
	case rrIncremental:
		switch {
		case d.Source == nil:
		case *d.Source == rrMutation:
			for i := range d.Adds {
				if d.Adds[i].Node.private() {
					return RefusedValue, nil
				}
			}
			for _, a := range d.Attributes {
				if v, ok := a.Attributes["value"]; ok && !masked(v) {
					return RefusedValue, nil
				}
			}
		case *d.Source == rrInput:
			if !masked(d.Text) {
				return RefusedInput, nil
			}
		}
	}
	return "", nil
}

// Metrics are co-browse's Prometheus counters. A nil *Metrics counts nothing.
type Metrics struct {
	refused *prometheus.CounterVec
}

// NewMetrics creates the counters and registers them with reg (when not
// nil; registering twice with one registry reuses the first).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{refused: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "guichet", Subsystem: "cobrowse", Name: "refused_frames_total",
		Help: "Visitor co-browse frames refused because they carried a field value or a page address query (reason: value, input, address).",
	}, []string{"reason"})}
	for _, r := range []string{RefusedValue, RefusedInput, RefusedAddress} {
		m.refused.WithLabelValues(r)
	}
	if reg != nil {
		if err := reg.Register(m.refused); err != nil {
			var are prometheus.AlreadyRegisteredError
			if errors.As(err, &are) {
				if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
					m.refused = existing
				}
			}
		}
	}
	return m
}

func (m *Metrics) refuse(reason string) {
	if m != nil {
		m.refused.WithLabelValues(reason).Inc()
	}
}

// Refused is the count of refused frames for reason (tests, diagnostics).
func (m *Metrics) Refused(reason string) float64 {
	if m == nil {
		return 0
	}
	var out dto.Metric
	if err := m.refused.WithLabelValues(reason).Write(&out); err != nil {
		return 0
	}
	return out.GetCounter().GetValue()
}
