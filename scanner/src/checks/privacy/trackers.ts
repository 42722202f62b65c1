/** Hosts of widely deployed analytics, advertising and session-recording scripts, by the name users know them by. */
export const TRACKERS: readonly (readonly [RegExp, string])[] = [
  [/(^|\.)google-analytics\.com$/, 'Google Analytics'],
  [/(^|\.)googletagmanager\.com$/, 'Google Tag Manager'],
  [/(^|\.)(doubleclick\.net|googlesyndication\.com|googleadservices\.com)$/, 'Google Ads'],
  [/(^|\.)(connect\.facebook\.net|facebook\.com)$/, 'Meta Pixel'],
  [/(^|\.)hotjar\.(com|io)$/, 'Hotjar'],
  [/(^|\.)clarity\.ms$/, 'Microsoft Clarity'],
  [/(^|\.)bat\.bing\.com$/, 'Microsoft Advertising'],
  [/(^|\.)(analytics\.tiktok\.com|tiktok\.com)$/, 'TikTok Pixel'],
  [/(^|\.)(snap\.licdn\.com|px\.ads\.linkedin\.com)$/, 'LinkedIn Insight'],
  [/(^|\.)(static\.ads-twitter\.com|analytics\.twitter\.com)$/, 'X (Twitter) Ads'],
  [/(^|\.)(segment\.com|segment\.io|cdn\.segment\.com)$/, 'Segment'],
  [/(^|\.)(mixpanel\.com|mxpnl\.com)$/, 'Mixpanel'],
  [/(^|\.)(amplitude\.com)$/, 'Amplitude'],
  [/(^|\.)(fullstory\.com)$/, 'FullStory'],
  [/(^|\.)(mouseflow\.com)$/, 'Mouseflow'],
  [/(^|\.)(criteo\.(com|net))$/, 'Criteo'],
  [/(^|\.)(taboola\.com)$/, 'Taboola'],
  [/(^|\.)(outbrain\.com)$/, 'Outbrain'],
  [/(^|\.)(mc\.yandex\.ru)$/, 'Yandex Metrica'],
  [/(^|\.)(hs-scripts\.com|hs-analytics\.net)$/, 'HubSpot'],
  [/(^|\.)(rdstation\.com\.br|d335luupugsy2\.cloudfront\.net)$/, 'RD Station'],
];

/** Inline snippets that load the same trackers without a visible script src. */
export const INLINE_TRACKERS: readonly (readonly [RegExp, string])[] = [
  [/\bgtag\(\s*['"]config['"]/, 'Google Analytics'],
  [/googletagmanager\.com\/gtm\.js/, 'Google Tag Manager'],
  [/\bfbq\(\s*['"]init['"]/, 'Meta Pixel'],
  [/static\.hotjar\.com/, 'Hotjar'],
  [/clarity\.ms\/tag/, 'Microsoft Clarity'],
];
