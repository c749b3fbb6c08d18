import { Link } from 'wouter';
import { FormAside } from '@/components/form-aside/form-aside';
import { useT } from '@/i18n/i18n';
import { usePageTitle } from '@/lib/page-title';
import { useSite } from '@/lib/site/site-context';
import { LoginForm } from '@/features/login/components/login-form';
import { useBackGuard } from '@/features/login/use-back-guard';
import '@/features/login/login.css';

/** Smart registration (spec §2.5, issue 15): brands with the registration flag on go to its account type. */
export const SMART_REGISTRATION_BUILT = true;

/**
 * Spec §2.2: where the create-account button goes, by the brand's
 * registration flag: smart registration's account type when it is on,
 * legacy registration otherwise.
 */
export function createAccountPath(registration: boolean, smartBuilt = SMART_REGISTRATION_BUILT): string {
  return registration && smartBuilt ? '/create-an-account/identification/account-type' : '/registration/identification';
}

/** / (exact): the login page of spec §2.2. */
export default function LoginRoute() {
  const t = useT();
  const { brand } = useSite();
  usePageTitle(t('login.title'));
  useBackGuard();
  return (
    <section className="page page--narrow login">
      <h1 id="login-title">{t('login.title')}</h1>
      <LoginForm titleId="login-title" />
      <p className="login__forgot">
        <Link href="/forgot">{t('login.forgot')}</Link>
      </p>
      <div className="login__create">
        <h2>{t('login.noAccount')}</h2>
        <Link href={createAccountPath(brand.features.registration)} className="button button--secondary">
          {t('login.createAccount')}
        </Link>
      </div>
      <FormAside />
    </section>
  );
}
