// Every GraphQL document the app sends to the Storefront API (version 2025-07). A test validates
// each one against Shopify's published schema for that version.

const PRODUCT_FIELDS = /* GraphQL */ `
  fragment ProductFields on Product {
    id
    title
    handle
    description
    priceRange {
      minVariantPrice {
        amount
        currencyCode
      }
      maxVariantPrice {
        amount
        currencyCode
      }
    }
    images(first: $imagesFirst) {
      edges {
        node {
          url
          altText
          thumbnailUrl: url(transform: { maxWidth: 240, maxHeight: 240 })
        }
      }
    }
    variants(first: $variantsFirst) {
      edges {
        node {
          id
          title
          availableForSale
          price {
            amount
            currencyCode
          }
          selectedOptions {
            name
            value
          }
        }
      }
    }
    options {
      name
      optionValues {
        name
      }
    }
  }
`;

export const PRODUCTS_QUERY = /* GraphQL */ `
  query Products($first: Int!, $variantsFirst: Int!, $imagesFirst: Int!) {
    products(first: $first) {
      edges {
        node {
          ...ProductFields
        }
      }
    }
  }
  ${PRODUCT_FIELDS}
`;

export const PRODUCT_BY_HANDLE_QUERY = /* GraphQL */ `
  query ProductByHandle($handle: String!, $variantsFirst: Int!, $imagesFirst: Int!) {
    product(handle: $handle) {
      ...ProductFields
    }
  }
  ${PRODUCT_FIELDS}
`;

export const CART_CREATE_MUTATION = /* GraphQL */ `
  mutation CartCreate($input: CartInput!) {
    cartCreate(input: $input) {
      cart {
        id
        checkoutUrl
        totalQuantity
        cost {
          totalAmount {
            amount
            currencyCode
          }
        }
        lines(first: 100) {
          edges {
            node {
              id
              quantity
              merchandise {
                ... on ProductVariant {
                  id
                  title
                  price {
                    amount
                    currencyCode
                  }
                  product {
                    title
                    handle
                  }
                }
              }
            }
          }
        }
      }
      userErrors {
        field
        message
      }
    }
  }
`;

/** How much of the catalogue each screen reads: what it shows, and no more. */
export const LIMITS = {
  listProducts: 10,
  adminProducts: 50,
  listVariants: 10,
  listImages: 1,
  productVariants: 50,
  productImages: 5,
  cartLines: 100,
} as const;
