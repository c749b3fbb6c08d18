import { fail, pass, type RuleResult } from './result';

/** Terms checkbox (spec §5): 'You must agree to the Terms of Use to sign up.' */
export function checkTerms(accepted: boolean): RuleResult<boolean> {
  return accepted ? pass(true) : fail('checkbox', 'errorTermsRequired');
}
