import { Redirect, useParams, useSearch } from 'wouter';
import { isRoadblockPage } from '@/lib/flow/roadblocks';
import { useFlow } from '@/lib/flow/state';
import { RoadblockView } from '@/features/roadblock/components/roadblock-view';

/**
 * /roadblock (the technical page) and /roadblock/:page. Spec §2.6: reachable
 * only while the roadblocked flag is set, else / keeping the query string.
 */
export default function RoadblockRoute() {
  const { page = 'technical' } = useParams<{ page?: string }>();
  const search = useSearch();
  const { roadblocked } = useFlow();
  if (!roadblocked) return <Redirect to={search ? `/?${search}` : '/'} replace />;
  if (!isRoadblockPage(page)) return <Redirect to="/not-found" replace />;
  return <RoadblockView page={page} />;
}
