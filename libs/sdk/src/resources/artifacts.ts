import type { GroundingDocument } from '../contract-types';
import { path, type Query, type RequestOptions } from '../http';
import type { ArtifactDirectoryListing, ArtifactKey, ExtractionDocument } from '../types';
import { Resource, requestOptions } from './resource';

type DirKey = 'pages' | 'imgs';
export interface ArtifactOptions extends RequestOptions {
  /** A member of the `pages` or `imgs` directory (e.g. `page_0001.png`); `..` is refused (403). */
  file?: string;
}

/**
 * Artifact reads decode by the response's content type: JSON is parsed, text (markdown) comes back
 * as a string, anything else (page images, crops) as a Buffer. The overloads give the usual types.
 */
export class Artifacts extends Resource {
  get(manifestId: string, key: 'result_md', opts?: ArtifactOptions): Promise<string>;
  get(manifestId: string, key: 'grounding_json', opts?: ArtifactOptions): Promise<GroundingDocument>;
  get(manifestId: string, key: 'result_json', opts?: ArtifactOptions): Promise<ExtractionDocument>;
  get(manifestId: string, key: DirKey, opts: ArtifactOptions & { file: string }): Promise<Buffer>;
  get(
    manifestId: string,
    key: DirKey,
    opts?: ArtifactOptions & { file?: undefined },
  ): Promise<ArtifactDirectoryListing>;
  get(manifestId: string, key: ArtifactKey, opts?: ArtifactOptions): Promise<unknown>;
  get(manifestId: string, key: ArtifactKey, opts: ArtifactOptions = {}): Promise<unknown> {
    return this.call({
      method: 'GET',
      path: path`/v1/artifacts/${manifestId}/${key}`,
      query: { file: opts.file },
      response: 'auto',
      ...requestOptions(opts),
    });
  }

  /**
   * Follows a link from the index, a manifest or a directory listing (`/v1/artifacts/...`). Links
   * are paths on this API; anything else is refused so credentials never go to another host.
   */
  getLink(link: string, o?: RequestOptions): Promise<unknown> {
    if (!link.startsWith('/v1/') || link.startsWith('//'))
      throw new TypeError(`artifacts.getLink: expected an API path starting with /v1/, got ${JSON.stringify(link)}`);
    const [p, qs = ''] = link.split('?', 2);
    const query: Query = Object.fromEntries(new URLSearchParams(qs));
    return this.call({ method: 'GET', path: p, query, response: 'auto', ...requestOptions(o) });
  }
}
