import { PasswordField } from '@/components/form/password-field';
import { useT } from '@/i18n/i18n';

/** The new password and its confirmation (spec §2.3 /reset, both variants); the form names them password and passwordConfirmation. */
export function NewPasswordFields() {
  const t = useT();
  return (
    <>
      <PasswordField
        name="password"
        autoComplete="new-password"
        label={t('recovery.reset.newPassword')}
        hint={t('protectAccount.passwordInfo')}
      />
      <PasswordField name="passwordConfirmation" autoComplete="new-password" label={t('recovery.reset.passwordConfirmation')} />
    </>
  );
}
