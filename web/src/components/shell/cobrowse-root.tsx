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
  return (
    <Suspense fallback={null}>
      <Cobrowse request={request} onRequestHandled={onRequestHandled} />
    </Suspense>
  );
}
