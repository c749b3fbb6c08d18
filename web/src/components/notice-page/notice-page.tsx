import { Link } from 'wouter';
import { usePageTitle } from '@/lib/page-title';

export interface NoticePageProps {
  /** The heading's id, which labels the section. */
  headingId: string;
  title: string;
  text: string;
  backToLogin: string;
}

/** A narrow page that says one thing under its title, with a button back to login (spec §2.1). */
export function NoticePage({ headingId, title, text, backToLogin }: NoticePageProps) {
  usePageTitle(title);
  return (
    <section className="page page--narrow" aria-labelledby={headingId}>
      <h1 id={headingId}>{title}</h1>
      <p>{text}</p>
      <Link href="/" className="button button--primary">
        {backToLogin}
      </Link>
    </section>
  );
}
