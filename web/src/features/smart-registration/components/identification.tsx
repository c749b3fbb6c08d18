import { use, useEffect, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { Form, SubmitButton } from '@/components/form/form';
import { useForm } from '@/components/form/use-form';
import { isMessageKey } from '@/i18n/catalog';
import { MessagesContext, useT } from '@/i18n/i18n';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { useSite } from '@/lib/site/site-context';
import { readFlow } from '@/lib/flow/state';
import { invalidFields } from '@/features/smart-registration/api';
import { keptFields, loadFields, type KnownField } from '@/features/smart-registration/arrival';
import { FieldControl, fieldLabel, fieldSpec, type FieldContext } from '@/features/smart-registration/fields';
import { useSmartSend, type SmartSend } from '@/features/smart-registration/use-smart-send';
import { BackButton } from './back-button';
import { SmartPage } from './smart-page';

/**
 * /create-an-account/identification (spec §2.5): the step form the server
 * drives. Its fields come from the step endpoint (the brand file's list for
 * the account type and province); the answer's session says where to go.
 */
export function Identification() {
  const t = useT();
  const smart = useSmartSend();
  // Kept when the visitor came by a step's Next or Back (follow asked for them): the first paint holds the form.
  const [fields, setFields] = useState<KnownField[] | null>(() => keptFields(readFlow().smartRegistration?.token));

  useEffect(() => {
    if (fields) return;
    let live = true;
    void loadFields(() => smart.send((api) => api.fields()), smart.roadblock).then((list) => {
      if (live && list) setFields(list);
    });
    return () => {
      live = false;
    };
    // Once per visit of the page: the session's fields do not change under it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <SmartPage title={t('smartRegistration.identification.title')} dialog={smart.dialog}>
      <p>{t('smartRegistration.identification.intro')}</p>
      {fields ? (
        <IdentificationForm fields={fields} smart={smart} />
      ) : (
        <p role="status" className="smart-registration__loading">
          {t('smartRegistration.loading')}
        </p>
      )}
    </SmartPage>
  );
}

function IdentificationForm({ fields, smart }: { fields: KnownField[]; smart: SmartSend }) {
  const t = useT();
  const messages = use(MessagesContext);
  const { brand, province } = useSite();
  const ctx: FieldContext = useMemo(() => ({ brand, province, today: new Date() }), [brand, province]);
  const specs = useMemo(() => Object.fromEntries(fields.map((f) => [f.name, fieldSpec(f, ctx)])) as Record<string, ReturnType<typeof fieldSpec>>, [fields, ctx]);
  const form = useForm(specs);
  const { setFormError, setError } = form;

  const submit = async (values: Record<string, unknown>) => {
    const body = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
    const result = await smart.send((api) => api.identify(body));
    if (!result) return;
    const { answer, outcome } = result;
    if (outcome.kind === 'continue') {
      // REDIRECT hands these to legacy registration's form (spec §4.1): the answer's, else those typed.
      const { policyNumber = body.policyNumber, postalCode = body.postalCode } = answer.value ?? {};
      return smart.follow({ policyNumber, postalCode });
    }
    if (outcome.kind === 'message') return setFormError(outcomeMessage(outcome));
    if (outcome.kind === 'returned' && outcome.errorCode === 'VALIDATION') {
      const invalid = Object.entries(invalidFields(answer.data)).filter(([name, key]) => Object.hasOwn(specs, name) && isMessageKey(key));
      if (invalid.length === 0) return smart.roadblock('technical');
      for (const [name, key] of invalid) setError(name, key as Parameters<typeof setError>[1]);
    }
  };

  const accountExists = form.formError === 'accountAlreadyExists';

  return (
    <Form form={form} onSubmit={submit}>
      {accountExists ? (
        <p>
          <Link href="/">{t('smartRegistration.identification.signIn')}</Link>
        </p>
      ) : null}
      {fields.map((field) => (
        <FieldControl key={field.name} field={field} label={fieldLabel(field, messages)} optional={t('smartRegistration.field.optional')} ctx={ctx} />
      ))}
      <div className="smart-registration__actions">
        <SubmitButton>{t('smartRegistration.next')}</SubmitButton>
        <BackButton smart={smart} />
      </div>
    </Form>
  );
}
