import { PAGE_PROFILES, fail, pass, type Check } from '../check.js';
import { REF } from '../references.js';
import { WEIGHT } from '../../scoring/scoring.js';

/** An XML sitemap (urlset or sitemapindex) is reachable at /sitemap.xml or where robots.txt names it. */
export const sitemap: Check<'sitemapXml'> = {
  id: 'seo.sitemap',
  pillar: 'readiness',
  dimension: 'seo',
  profiles: PAGE_PROFILES,
  weight: WEIGHT.standard,
  needs: ['sitemapXml'],
  version: 1,
  audience: ['marketing', 'development'],
  references: [REF.gscSitemap, REF.sitemapsOrg],
  run({ sitemapXml: probe }) {
    const isXml = /<(urlset|sitemapindex)[\s>]/i.test(probe.body);
    if (probe.status === 200 && isXml) {
      const urls = (probe.body.match(/<loc>/gi) ?? []).length;
      return pass(`${probe.url}: XML sitemap with ${urls} <loc> entr${urls === 1 ? 'y' : 'ies'}.`);
    }
    return fail({
      severity: 'Low',
      effort: 'Baixo',
      title: probe.status === 200 ? 'Sitemap is not a valid XML sitemap' : 'No XML sitemap found',
      evidence: probe.status === 200 ? `${probe.url} answered 200 (${probe.contentType}) without <urlset> or <sitemapindex>.` : `${probe.url} answered ${probe.status}.`,
      impact: 'Crawlers discover pages only through links, slower and less completely.',
      businessImpact: 'New or deep pages take longer to appear in search and AI answers.',
      recommendation: 'Publish /sitemap.xml (sitemaps.org protocol) listing canonical URLs, and name it in robots.txt with a Sitemap: line.',
    });
  },
};
