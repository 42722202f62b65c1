import { STYLE, type ReportLayout } from './report-layout.js';

/**
 * What a static look at one page cannot know (growth report): each item names the data source it needs, so the
 * reader knows the report's limits and where to get the rest.
 */
const NOT_MEASURED: readonly (readonly [string, string])[] = [
  ['Plataformas de anúncios (Google Ads, Meta Ads, LinkedIn Ads, TikTok Ads)', 'Investimento, impressões, cliques, CTR, CPC, conversões, custo por aquisição e Índice de Qualidade: exigem acesso às contas de anúncios.'],
  ['Dados de busca orgânica (Google Search Console, Bing Webmaster Tools)', 'Impressões, cliques, posição média, consultas que trazem visitas e cobertura de indexação: exigem acesso às propriedades verificadas.'],
  ['Dados de SERP (páginas de resultados de busca)', 'Posição do site para cada termo, concorrentes na mesma busca, volume de buscas e recursos da SERP (trechos em destaque, respostas de IA): exigem um provedor de dados de SERP.'],
  ['Dados de campo de usuários reais (Chrome UX Report, analytics)', 'Core Web Vitals medidos nos visitantes, taxas de conversão e origem do tráfego: esta análise lê a página uma vez, de um servidor.'],
];

export function drawNotMeasured(layout: ReportLayout, keyword: string | undefined): void {
  layout.heading('O que não foi medido', STYLE.h2, 120);
  layout.paragraph('Este diagnóstico lê a página publicada, sem acesso às suas contas. Ficaram de fora, e pedem outras fontes de dados:', STYLE.body, 3);
  for (const [what, why] of NOT_MEASURED) {
    layout.paragraph(`• ${what}`, STYLE.label, 2, undefined, undefined, 1);
    layout.paragraph(why, STYLE.body, 3, 60, 487, 6);
  }
  if (keyword !== undefined && keyword.trim() !== '') {
    layout.paragraph(`A posição de “${keyword}” nas buscas não foi medida: pede dados de SERP.`, STYLE.body, 3);
  }
}
