// Swagger UI in a real browser (headless Chromium): authorize with a key, pick the agent media type
// for GET /books, try it out, and read the envelope the gateway answered from the response panel.
// Every request the page makes must stay on the gateway: the UI loads nothing from outside.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import t from 'tap'
import { AGENT_MEDIA_TYPE } from '../../src/audience.js'
import { buildApp, KEY } from '../helpers/app.js'

const CHROMIUM = '/usr/bin/chromium'
const OPERATION = '#operations-books-listBooks'
const WAIT = { timeout: 30_000 }

if (existsSync(CHROMIUM)) {
  // A browser's start is slow on a busy machine: well past tap's default 30 s per file.
  t.setTimeout(180_000)
  t.test('Swagger UI: authorize, choose the agent media type, execute GET /books', async (t) => {
    const dir = t.testdir()
    // Not shed: a busy test machine is not a loaded gateway.
    const { app } = await buildApp(t, { loadShedding: { maxEventLoopDelay: 0 } })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const browser = await launch(dir)
    // Closed within the test, before tap removes its directory, which holds Chromium's profile: a
    // teardown would run after that removal, and a browser still writing there failed it on a busy machine.
    try {
      const page = await browser.newPage()
      page.setDefaultTimeout(WAIT.timeout)

      const requested: string[] = []
      const executed: Array<Record<string, string>> = []
      page.on('request', (request) => {
        requested.push(request.url())
        if (new URL(request.url()).pathname === '/books') executed.push(request.headers())
      })

      await page.goto(`${base}/docs`, { waitUntil: 'networkidle0' })
      await authorize(page, KEY)
      await page.click(`${OPERATION} .opblock-summary-control`)
      await page.waitForSelector(`${OPERATION} .response-control-media-type--accept-controller select`, WAIT)
      await page.select(`${OPERATION} .response-control-media-type--accept-controller select`, AGENT_MEDIA_TYPE)
      await page.click(`${OPERATION} .try-out__btn`)
      await page.click(`${OPERATION} button.execute`)
      const body = await responseBody(page)
      await page.screenshot({ path: join(dir, 'swagger-ui.png'), fullPage: true })
      await (await page.$(OPERATION))?.screenshot({ path: join(dir, 'get-books.png') })

      t.match(executed, [{ accept: AGENT_MEDIA_TYPE, authorization: `Bearer ${KEY}` }], 'the request asked for the agent variant, with the key')
      t.match(body, {
        items: [
          { id: 1, title: 'The Dispossessed', status: 'Published', price: 'EUR 9.99', published_on: '01 May 1974' },
          { id: 2, title: 'The Lathe of Heaven', status: 'Draft', price: 'EUR 9.99', published_on: null },
          { id: 3, title: 'A Wizard of Earthsea', status: 'Published', price: 'EUR 9.99', published_on: '01 November 1968' }
        ],
        page: 1,
        totalPages: 1,
        hasNext: false
      })
      t.notOk(body.items.some((item: object) => 'author_id' in item), 'no hidden field')
      t.strictSame(requested.filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:')), [], 'nothing loaded from outside the service')
      t.ok(existsSync(join(dir, 'swagger-ui.png')) && existsSync(join(dir, 'get-books.png')), 'screenshots taken')
    } finally {
      await browser.close()
    }
  })
} else {
  const why = `${CHROMIUM} is absent: the Swagger UI browser test needs Debian's chromium package (apt-get install chromium).`
  if (process.env.GATEWAY_REQUIRE_SERVICES === '1') {
    t.fail(`${why} GATEWAY_REQUIRE_SERVICES=1 requires it.`)
  } else {
    console.error(`\n*** SKIPPED test/browser/swagger-ui.test.ts: ${why}\n`)
    t.skip(why, () => {})
  }
}

async function launch (dir: string): Promise<Browser> {
  return await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${join(dir, 'profile')}`
    ]
  })
}

/** Swagger UI's Authorize dialog: the bearer key, Authorize, then Close. */
async function authorize (page: Page, key: string): Promise<void> {
  await page.click('.auth-wrapper button.authorize')
  await page.waitForSelector('.modal-ux input[aria-label="auth-bearer-value"]', WAIT)
  await page.type('.modal-ux input[aria-label="auth-bearer-value"]', key)
  await page.click('.modal-ux .auth-btn-wrapper button.authorize')
  await page.waitForSelector('.modal-ux .auth-btn-wrapper button.btn-done', WAIT)
  await page.click('.modal-ux .auth-btn-wrapper button.btn-done')
  await page.waitForSelector('.modal-ux', { hidden: true, ...WAIT })
}

/** The body of the live response, as the response panel shows it. */
async function responseBody (page: Page) {
  const selector = `${OPERATION} .live-responses-table .response-col_description pre`
  await page.waitForSelector(selector, WAIT)
  const text = await page.$eval(selector, (element) => element.textContent ?? '')
  return JSON.parse(text)
}
