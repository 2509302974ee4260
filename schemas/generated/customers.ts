/* Generated from schemas/customers.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * The reference server's choice for GET /v1/customers (the spec does not show the response fields): a list envelope of customers of the key's tenant and environment.
 */
export interface CustomersResponse {
  object: 'list';
  data: Customer[];
  /**
   * Whether more customers follow. Always false unless the server pages its list (--page-size): then the next page is named by the Link rel="next" header field.
   */
  has_more: boolean;
}
export interface Customer {
  id: string;
  object: 'customer';
  name: string;
  email: string;
  created_at: string;
}
