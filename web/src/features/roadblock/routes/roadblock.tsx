import { useState } from 'react';
import { useParams, useSearch } from 'wouter';
import { Redirect } from '@/lib/navigation/shown-location';
import { previousPage } from '@/lib/flow/previous-page';
import { guardRedirect, mayOpen } from '@/lib/flow/registration-guard';
import { isRoadblockPage, type RoadblockPage } from '@/lib/flow/roadblocks';
import { useFlow } from '@/lib/flow/state';
import { RoadblockView } from '@/features/roadblock/components/roadblock-view';

/** Spec §2.4's table guards two roadblocks of legacy registration besides the flag. */
function arrivedAllowed(page: string): boolean {
  if (page === 'no-options' || page === 'pin-difficulties') return mayOpen(`roadblock/${page}`, previousPage());
  return true;
}

/**
 * /roadblock (the technical page) and /roadblock/:page. Spec §2.6: reachable
 * only while the roadblocked flag is set, else / keeping the query string;
 * no-options and pin-difficulties also only from the validation pages (§2.4).
 */
export default function RoadblockRoute() {
  const { page = 'technical' } = useParams<{ page?: string }>();
  const search = useSearch();
  const { roadblocked } = useFlow();
  // Decided on arrival, from the flag and the page the visitor came from: leaving clears the flag (spec §2.6) while
  // this page is still on screen until the next one shows (ShownLocationRouter).
  const [allowed] = useState(() => roadblocked && arrivedAllowed(page));
  if (!allowed) return <Redirect to={guardRedirect(search)} replace />;
  if (!isRoadblockPage(page)) return <Redirect to="/not-found" replace />;
  return <RoadblockView page={page satisfies RoadblockPage} />;
}
