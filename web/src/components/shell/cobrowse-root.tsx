import { Suspense, useCallback, useEffect, useState, type ComponentType } from 'react';
import { onCobrowseRequest, readLiveSession, type CobrowseStart } from '@/lib/cobrowse/start';

// Co-browse (issue 18) in the shell, above the header: nothing until the
// visitor asks to share (the footer link, an agent's request in chat) or
// this tab remembers a session that may be live; then the feature's chunk
// (consent dialog, banner, socket) loads and the server decides. The app
// hands the feature in as a lazy component (shared code imports no feature).

/** What the shell gives co-browse (src/features/cobrowse/cobrowse.tsx). */
export interface CobrowseProps {
  request: CobrowseStart | null;
  onRequestHandled: () => void;
}

export function CobrowseRoot({ Cobrowse }: { Cobrowse: ComponentType<CobrowseProps> }) {
  const [loaded, setLoaded] = useState(() => readLiveSession() !== null);
  const [request, setRequest] = useState<CobrowseStart | null>(null);

  useEffect(
    () =>
      onCobrowseRequest((start) => {
        setLoaded(true);
        setRequest(start);
      }),
    [],
  );
  const onRequestHandled = useCallback(() => setRequest(null), []);

  if (!loaded) return null;
  // While the chunk loads for a remembered session, the banner's room is
  // kept (issue 32), so the page does not move down when it comes.
  const fallback = readLiveSession() !== null ? <div className="cobrowse-reserve" aria-hidden="true" /> : null;
  return (
    <Suspense fallback={fallback}>
      <Cobrowse request={request} onRequestHandled={onRequestHandled} />
    </Suspense>
  );
}
