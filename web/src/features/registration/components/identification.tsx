import { Link, useLocation } from 'wouter';
import { DateOfBirthField } from '@/components/form/date-of-birth-field';
import { Form, SubmitButton } from '@/components/form/form';
import { LicenceProvinceField } from '@/components/form/licence-province-field';
import { DriverLicenceField, PolicyNumberField, policyFormat, PostalCodeField } from '@/components/form/masked-field';
import { FirstNameField, LastNameField } from '@/components/form/text-field';
import { useForm } from '@/components/form/use-form';
import { useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { readFlow, updateFlow, useFlow, type RegistrationState } from '@/lib/flow/state';

import { checkDateOfBirth } from '@/lib/rules/date-of-birth';
import { checkDriverLicence } from '@/lib/rules/driver-licence';
import { checkFirstName, checkLastName } from '@/lib/rules/names';
import { checkPolicyNumber } from '@/lib/rules/policy-number';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { useSite } from '@/lib/site/site-context';
import { registrationApi, optionsOf, type Identification as IdentificationBody } from '@/features/registration/api';
import { fieldKey } from '@/features/registration/field-key';
import { afterIdentification, ATTEMPTS, selectionOf } from '@/features/registration/flow';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { RegistrationPage } from '@/features/registration/components/registration-page';

const TITLE_ID = 'registration-identification-title';

/** The counts of spec §4.2 kept while no registration is under way (they live in the registration state). */
function count(name: 'notFound' | 'alreadyRegistered'): number {
  const registration: RegistrationState = readFlow().registration ?? {};
  const next = (registration[name] ?? 0) + 1;
  updateFlow({ registration: { ...registration, [name]: next } });
  return next;
}

/**
 * /registration/identification (spec §2.4, §4.2): the policy and the person.
 * 240 starts the verification; 404 says not found (3: registration
 * difficulties); 200 says the person already has an account, with a
 * sign-in link (3: more than one profile).
 */
export function Identification() {
  const t = useT();
  const clients = useApiClients();
  const { brand, province } = useSite();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const [, navigate] = useLocation();
  const format = policyFormat(brand.policyNumber, province);
  const ubi = brand.provinces.find((p) => p.key === province)?.ubi === true;
  const licenceProvince = brand.provinces.find((p) => p.key === province)?.license ? province : '';
  const form = useForm({
    policyNumber: { rule: (input: string) => checkPolicyNumber(input, format), initial: registration?.policyNumber ?? '' },
    firstName: { rule: checkFirstName, initial: registration?.firstName ?? '' },
    lastName: { rule: checkLastName, initial: registration?.lastName ?? '' },
    dateOfBirth: { rule: (input: string) => checkDateOfBirth(input, new Date()), initial: registration?.dateOfBirth ?? '' },
    postalCode: { rule: checkPostalCode, initial: registration?.postalCode ?? '' },
    licenceProvince: { initial: licenceProvince },
    driverLicence: {
      rule: (input: string, licence: string) => checkDriverLicence(input, licence, ubi),
      with: 'licenceProvince',
    },
  });
  const { setFormError } = form;

  const submit = async (values: {
    policyNumber: string;
    firstName: string;
    lastName: string;
    dateOfBirth: string;
    postalCode: string;
    licenceProvince: string;
    driverLicence: string;
  }) => {
    const { licenceProvince: licence, driverLicence, ...person } = values;
    const body: IdentificationBody = ubi ? { ...person, driverLicence, licenceProvince: licence } : person;
    const result = await response.send(() => registrationApi(clients).identify(body), 'identification');
    if (!result) return;
    const { answer, outcome } = result;
    const found = answer.value;
    if (outcome.kind === 'continue' && found?.status === 'REGISTRATION') {
      const options = optionsOf(found.twoFactorValidations);
      const next = afterIdentification(options);
      // A single ask-email or PIN is selected for the visitor: the next page submits with it.
      const selected = 'selected' in next && next.selected ? selectionOf(next.selected) : {};
      updateFlow({
        registration: {
          ...person,
          id: found.id,
          twoFactorValidations: options,
          ubiMatchPH: found.ubiMatchPH === true,
          isUbiFlow: found.ubiMatchPH === true,
          email: found.email,
          province,
          ...selected,
        },
        // A registration by identification is no invitation's: the password page asks no token proof.
        emailToken: null,
      });
      if ('roadblock' in next) response.roadblock(next.roadblock);
      else navigate(next.to);
      return;
    }
    if (outcome.kind === 'continue' && found?.status === 'REGISTERED') {
      if (count('alreadyRegistered') >= ATTEMPTS) return response.roadblock('more-than-one-profile');
      setFormError('registration.identification.alreadyRegistered');
      return;
    }
    if (outcome.kind === 'message' && answer.status === 404) {
      // The catalogue set the roadblocked flag (§8.1); the page stays.
      if (count('notFound') >= ATTEMPTS) return response.roadblock('registration-difficulties');
      setFormError(outcomeMessage(outcome));
      return;
    }
    const key = fieldKey(answer.data);
    if (outcome.kind === 'returned' && key && Object.hasOwn(form.specs, key.field)) {
      form.setError(key.field as keyof typeof form.specs & string, key.key);
      return;
    }
    if (outcome.kind === 'returned' && key) {
      setFormError(key.key);
      return;
    }
    if (outcome.kind === 'message') setFormError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned' || outcome.kind === 'continue') response.roadblock('technical');
  };

  const alreadyRegistered = form.formError === 'registration.identification.alreadyRegistered';

  return (
    <RegistrationPage titleId={TITLE_ID} title={t('registration.identification.title')} dialog={response.dialog}>
      <p>{t('registration.identification.intro')}</p>
      <p>
        <Link href="/">{t('registration.backToLogin')}</Link>
      </p>
      <Form form={form} onSubmit={submit} aria-labelledby={TITLE_ID}>
        {alreadyRegistered ? (
          <p className="registration__signin">
            <Link href="/">{t('registration.identification.signIn')}</Link>
          </p>
        ) : null}
        <PolicyNumberField name="policyNumber" format={format} />
        <FirstNameField name="firstName" />
        <LastNameField name="lastName" />
        <DateOfBirthField name="dateOfBirth" />
        <PostalCodeField name="postalCode" />
        {ubi ? (
          <>
            <LicenceProvinceField name="licenceProvince" />
            <DriverLicenceField name="driverLicence" province={form.inputs.licenceProvince} />
          </>
        ) : null}
        <div className="registration__actions">
          <SubmitButton>{t('registration.next')}</SubmitButton>
          <button type="button" className="button button--secondary" onClick={() => navigate('/')}>
            {t('registration.back')}
          </button>
        </div>
      </Form>
    </RegistrationPage>
  );
}
