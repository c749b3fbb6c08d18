package rules

// Terms checks the terms-of-use checkbox (spec §5): it must be ticked.
func Terms(accepted bool) error {
	if !accepted {
		return Error{FieldTerms, KeyTermsRequired}
	}
	return nil
}
