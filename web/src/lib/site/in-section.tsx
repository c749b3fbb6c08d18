import type { ComponentType } from 'react';
import { MessageSection, type SectionName } from '@/i18n/section';
import { useSite } from './site-context';

/**
 * A component whose texts live in a message section: it renders under
 * <MessageSection> in the site's language (suspending while the section
 * loads), its props passed on.
 */
export function inSection<P extends object>(name: SectionName, Component: ComponentType<P>): ComponentType<P> {
  function InSection(props: P) {
    const { language } = useSite();
    return (
      <MessageSection name={name} language={language}>
        <Component {...props} />
      </MessageSection>
    );
  }
  InSection.displayName = `inSection(${Component.displayName ?? Component.name})`;
  return InSection;
}
